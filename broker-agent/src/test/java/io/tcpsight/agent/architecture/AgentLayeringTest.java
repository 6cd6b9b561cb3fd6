package io.tcpsight.agent.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
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
 * The agent's parts and what each may reach (docs/architecture.md): the hooks (bytecode for
 * Kafka's classes), the naming of connections (the hooks' receiver), the listener watch and the
 * HTTP endpoint are parts the agent's root package (startup) assembles; they know nothing of it,
 * and only naming reaches another part (the hooks' interface it implements). The agent never links a Kafka type: it hooks Kafka's classes by
 * name and reads their fields by reflection, so one jar serves every Kafka release.
 */
class AgentLayeringTest {
    private static final String[] PARTS = {
        "io.tcpsight.agent.internal.hooks..",
        "io.tcpsight.agent.internal.http..",
        "io.tcpsight.agent.internal.naming..",
        "io.tcpsight.agent.internal.listeners.."
    };
    private static final JavaClasses AGENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.tcpsight.agent");

    @Test
    void thePartsKnowNothingOfTheAgentThatAssemblesThem() {
        noClasses()
                .that()
                .resideInAnyPackage(PARTS)
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.tcpsight.agent")
                .check(AGENT);
    }

    @Test
    void eachPartReachesOnlyThePartsBelowIt() {
        // The hooks are the bottom: bytecode and the receiver's interface, which naming implements.
        noClasses()
                .that()
                .resideInAPackage("io.tcpsight.agent.internal.hooks..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tcpsight.agent.internal.http..",
                        "io.tcpsight.agent.internal.naming..",
                        "io.tcpsight.agent.internal.listeners..")
                .check(AGENT);
        noClasses()
                .that()
                .resideInAPackage("io.tcpsight.agent.internal.http..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tcpsight.agent.internal.hooks..",
                        "io.tcpsight.agent.internal.naming..",
                        "io.tcpsight.agent.internal.listeners..")
                .check(AGENT);
        noClasses()
                .that()
                .resideInAPackage("io.tcpsight.agent.internal.naming..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tcpsight.agent.internal.http..", "io.tcpsight.agent.internal.listeners..")
                .check(AGENT);
        noClasses()
                .that()
                .resideInAPackage("io.tcpsight.agent.internal.listeners..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tcpsight.agent.internal.http..",
                        "io.tcpsight.agent.internal.naming..",
                        "io.tcpsight.agent.internal.hooks..")
                .check(AGENT);
    }

    @Test
    void noKafkaTypeIsLinkedAndBytecodeIsWrittenOnlyInTheHooks() {
        // The client telemetry receivers are the one exception: Kafka creates them from metric.reporters and
        // calls them through its own interfaces, so they must implement them; nothing of the agent loads them.
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName("io.tcpsight.agent.TcpsightClientTelemetry")
                .and()
                .doNotHaveFullyQualifiedName("io.tcpsight.agent.TcpsightClientTelemetryExporter")
                .and()
                .doNotHaveFullyQualifiedName("io.tcpsight.agent.ClientTelemetryReporter")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.kafka..")
                .check(AGENT);
        noClasses()
                .that()
                .resideOutsideOfPackage("io.tcpsight.agent.internal.hooks..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.objectweb.asm..")
                .check(AGENT);
    }

    @Test
    void theAgentUsesTheCoreNotTheClientIntegrations() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tcpsight.kafka..", "io.tcpsight.report..")
                .check(AGENT);
    }

    @Test
    void meterTypesStayInTheMetersAndConnectPacing() {
        noClasses()
                .that()
                .haveNameNotMatching(".*(Meters|\\.ConnectPacer)(\\$.*)?")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.micrometer..")
                .check(AGENT);
    }

    @Test
    void thePublicFaceNamesNoInternalType() {
        assertEquals(Set.of(), PublicFace.internalTypesNamed(AGENT));
    }

    @Test
    void noTwoFilesUseEachOther() throws Exception {
        assertEquals(Set.of(), FileTies.twoWay(AGENT), "in the class files");
        assertEquals(Set.of(), FileTies.twoWayInSources(Path.of("src/main/java")), "in the sources");
    }

    @Test
    void noPublicMethodMayReturnNull() throws Exception {
        // A ClassFileTransformer answers null for "unchanged": the JDK's contract, not ours to change.
        assertEquals(
                List.of("io.tcpsight.agent.internal.hooks.KafkaHookTransformer.transform"),
                NullReturns.in(Path.of("target/classes/io/tcpsight")),
                "unknown is empty: an Optional");
    }

    /** What users name (docs): the rest is internal, as Kafka keeps its own. */
    @Test
    void onlyWhatTheDocsNameIsOutsideInternal() {
        Set<String> outside = new TreeSet<>();
        AGENT.stream()
                .filter(type -> type.getModifiers().contains(JavaModifier.PUBLIC) && type.isTopLevelClass())
                .filter(type -> !type.getPackageName().startsWith("io.tcpsight.agent.internal"))
                .forEach(type -> outside.add(type.getName()));
        assertEquals(
                Set.of(
                        "io.tcpsight.agent.TcpsightAgent",
                        "io.tcpsight.agent.TcpsightClientTelemetry",
                        "io.tcpsight.agent.TcpsightClientTelemetryExporter"),
                outside);
    }
}
