package io.tcpsight.connect.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.tcpsight.architecture.FileTies;
import io.tcpsight.architecture.NullReturns;
import io.tcpsight.testing.PublicFace;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The plugin's parts, top to bottom: the three types Connect loads by name (io.tcpsight.connect);
 * the REST resources; the worker's observation; the state the types share; the override policy's
 * pacing and checks and the config provider's tuning; the settings. Imports go down only.
 * What the Connect plugin's classes may reach: Micrometer only where the worker's observation is
 * assembled and its meters bound; the runtime and the exporters only there and in the REST
 * resources that serve them; never the client reporter (a worker's clients are observed by the
 * worker's one monitor, not by a reporter each).
 */
class PluginLayeringTest {
    private static final JavaClasses PLUGIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.tcpsight.connect");

    @Test
    void importsGoDownFromTheThreePluginTypes() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("plugin types")
                .definedBy("io.tcpsight.connect")
                .layer("rest")
                .definedBy("io.tcpsight.connect.internal.rest..")
                .layer("observation")
                .definedBy("io.tcpsight.connect.internal.observation..")
                .layer("state")
                .definedBy("io.tcpsight.connect.internal.state..")
                .layer("policy")
                .definedBy("io.tcpsight.connect.internal.policy..")
                .layer("provider")
                .definedBy("io.tcpsight.connect.internal.provider..")
                .layer("settings")
                .definedBy("io.tcpsight.connect.internal.settings..")
                .whereLayer("plugin types")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("rest")
                .mayOnlyBeAccessedByLayers("plugin types")
                .whereLayer("observation")
                .mayOnlyBeAccessedByLayers("plugin types", "rest")
                .whereLayer("state")
                .mayOnlyBeAccessedByLayers("plugin types", "rest", "observation")
                .whereLayer("policy")
                .mayOnlyBeAccessedByLayers("plugin types", "state", "observation")
                .whereLayer("provider")
                .mayOnlyBeAccessedByLayers("plugin types", "rest", "state", "observation")
                .check(PLUGIN);
    }

    @Test
    void meterTypesStayInTheWorkersObservation() {
        noClasses()
                .that()
                .haveNameNotMatching(".*\\.(WorkerObservation|WorkerMeters)(\\$.*)?")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.micrometer..")
                .check(PLUGIN);
    }

    @Test
    void theRuntimeAndTheExportersAreReachedOnlyByTheObservationAndTheRestResources() {
        noClasses()
                .that()
                .haveNameNotMatching(
                        ".*\\.(WorkerObservation|TcpsightEndpoints|TcpsightResource|TcpsightJavaxResource)(\\$.*)?")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tcpsight.internal.runtime..")
                .orShould()
                .dependOnClassesThat()
                .haveSimpleName("ConnectionMeters")
                .check(PLUGIN);
    }

    @Test
    void noClientReporterInTheWorker() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tcpsight.kafka..", "io.tcpsight.report..")
                .check(PLUGIN);
    }

    @Test
    void thePublicFaceNamesNoInternalType() {
        assertEquals(Set.of(), PublicFace.internalTypesNamed(PLUGIN));
    }

    @Test
    void noTwoFilesUseEachOther() throws Exception {
        assertEquals(Set.of(), FileTies.twoWay(PLUGIN), "in the class files");
        assertEquals(Set.of(), FileTies.twoWayInSources(Path.of("src/main/java")), "in the sources");
    }

    @Test
    void noPublicMethodMayReturnNull() throws Exception {
        assertEquals(List.of(), NullReturns.in(Path.of("target/classes/io/tcpsight")), "unknown is empty: an Optional");
    }

    /** What users name (docs): the rest is internal, as Kafka keeps its own. */
    @Test
    void onlyWhatTheDocsNameIsOutsideInternal() {
        Set<String> outside = new TreeSet<>();
        PLUGIN.stream()
                .filter(type -> type.getModifiers().contains(JavaModifier.PUBLIC) && type.isTopLevelClass())
                .filter(type -> !type.getPackageName().startsWith("io.tcpsight.connect.internal"))
                .forEach(type -> outside.add(type.getName()));
        assertEquals(
                Set.of(
                        "io.tcpsight.connect.TcpsightConfigProvider",
                        "io.tcpsight.connect.TcpsightOverridePolicy",
                        "io.tcpsight.connect.TcpsightRestExtension"),
                outside);
    }
}
