package io.tcpsight.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.testing.PublicFace;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The core's imports go one way, bottom to top (docs/architecture.md draws it). Every layer lives
 * under io.tcpsight.internal but for what users name (the reporter, the meter binder, the facts
 * report), which keeps its own package:
 * model; kernel access (host, tcp); config and pacing beside them; sampling; rules (diagnose,
 * tuning); monitoring; export; the runtime assembly; and the integrations on top (the client
 * reporter, the facts report).
 */
class LayeringTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.tcpsight");

    @Test
    void importsGoOneWayFromTheModelUp() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("model")
                .definedBy("io.tcpsight.internal.model..")
                .layer("config")
                .definedBy("io.tcpsight.internal.config..")
                .layer("pacing")
                .definedBy("io.tcpsight.internal.pacing..")
                .layer("kernel")
                .definedBy("io.tcpsight.internal.host..", "io.tcpsight.internal.tcp..")
                .layer("sampling")
                .definedBy("io.tcpsight.internal.sampling..")
                .layer("rules")
                .definedBy("io.tcpsight.internal.diagnose..", "io.tcpsight.internal.tuning..")
                .layer("monitoring")
                .definedBy("io.tcpsight.internal.monitor..")
                .layer("export")
                .definedBy("io.tcpsight.export..", "io.tcpsight.internal.export..")
                .layer("runtime")
                .definedBy("io.tcpsight.internal.runtime..")
                .layer("integrations")
                .definedBy("io.tcpsight.kafka..", "io.tcpsight.internal.kafka..", "io.tcpsight.report..")
                .whereLayer("integrations")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("runtime")
                .mayOnlyBeAccessedByLayers("integrations")
                .whereLayer("export")
                .mayOnlyBeAccessedByLayers("runtime", "integrations")
                .whereLayer("monitoring")
                .mayOnlyBeAccessedByLayers("export", "runtime", "integrations")
                .whereLayer("rules")
                .mayOnlyBeAccessedByLayers("monitoring", "export", "runtime", "integrations")
                .whereLayer("sampling")
                .mayOnlyBeAccessedByLayers("monitoring", "export", "runtime", "integrations")
                .whereLayer("kernel")
                .mayOnlyBeAccessedByLayers("sampling", "rules", "monitoring", "export", "runtime", "integrations")
                .whereLayer("pacing")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("model")
                .mayNotAccessAnyLayer()
                .whereLayer("config")
                .mayNotAccessAnyLayer()
                .whereLayer("pacing")
                .mayNotAccessAnyLayer()
                .whereLayer("kernel")
                .mayOnlyAccessLayers("model")
                .check(CORE);
    }

    /**
     * The rules' rooms stand on one another, bottom to top: the finding contract (what every rule
     * returns and every output reads); each client library's keys; the per-connection rules with
     * the window model they share; the listener, host, config and coverage rules, each apart from
     * the others; and the diagnosis that runs them.
     */
    @Test
    void theRulesRoomsGoOneWay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("finding")
                .definedBy("io.tcpsight.internal.diagnose.finding..")
                .layer("keys")
                .definedBy("io.tcpsight.internal.diagnose.keys..")
                .layer("connection")
                .definedBy("io.tcpsight.internal.diagnose.connection..")
                .layer("listener")
                .definedBy("io.tcpsight.internal.diagnose.listener..")
                .layer("host")
                .definedBy("io.tcpsight.internal.diagnose.host..")
                .layer("config")
                .definedBy("io.tcpsight.internal.diagnose.config..")
                .layer("coverage")
                .definedBy("io.tcpsight.internal.diagnose.coverage..")
                .layer("diagnosis")
                .definedBy("io.tcpsight.internal.diagnose")
                .whereLayer("diagnosis")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("listener")
                .mayOnlyBeAccessedByLayers("diagnosis")
                .whereLayer("host")
                .mayOnlyBeAccessedByLayers("diagnosis")
                .whereLayer("config")
                .mayOnlyBeAccessedByLayers("diagnosis")
                .whereLayer("coverage")
                .mayOnlyBeAccessedByLayers("diagnosis")
                .whereLayer("connection")
                .mayOnlyBeAccessedByLayers("host", "config", "diagnosis")
                .whereLayer("keys")
                .mayOnlyBeAccessedByLayers("connection", "config", "diagnosis")
                .whereLayer("finding")
                .mayNotAccessAnyLayer()
                .check(CORE);
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.tcpsight.(**)").should().beFreeOfCycles().check(CORE);
    }

    @Test
    void onlyWhatTheDocsNameIsOutsideInternal() {
        Set<String> outside = new TreeSet<>();
        CORE.stream()
                .filter(type -> type.getModifiers().contains(JavaModifier.PUBLIC) && type.isTopLevelClass())
                .filter(type -> !type.getPackageName().startsWith("io.tcpsight.internal"))
                .forEach(type -> outside.add(type.getName()));
        assertEquals(
                Set.of(
                        "io.tcpsight.kafka.TcpsightClientMetrics",
                        "io.tcpsight.kafka.TcpsightMetricsReporter",
                        "io.tcpsight.report.TcpFactsReport"),
                outside);
    }

    @Test
    void thePublicFaceNamesNoInternalType() {
        assertEquals(Set.of(), PublicFace.internalTypesNamed(CORE));
    }

    /** The scan sees an internal type in each place a public signature can name one, generics included. */
    @Test
    void thePublicFaceScanSeesEachPlace() {
        Set<String> named =
                PublicFace.internalTypesNamed(new ClassFileImporter().importClasses(ExposesInternalTypes.class));
        String monitor = ConnectionMonitor.class.getName();
        String owner = ExposesInternalTypes.class.getName();
        assertEquals(
                Set.of(
                        owner + " (a supertype): " + ConnectionMonitor.RoundListener.class.getName(),
                        owner + ".monitor(): " + monitor,
                        owner + ".monitors(): " + monitor,
                        owner + ".take(" + monitor + "): " + monitor,
                        owner + ".field: " + monitor),
                named);
    }

    @Test
    void noTwoFilesUseEachOther() throws Exception {
        assertEquals(Set.of(), FileTies.twoWay(CORE), "in the class files");
        assertEquals(Set.of(), FileTies.twoWayInSources(Path.of("src/main/java")), "in the sources");
    }
}
