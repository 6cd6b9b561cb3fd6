package io.tcpsight.doctor.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.tcpsight.architecture.FileTies;
import io.tcpsight.architecture.NullReturns;
import io.tcpsight.testing.PublicFace;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the doctor's classes may reach: Kafka's client types only where the doctor talks to a
 * cluster (the survey, the probe and its topic, the embedded broker, the command that wires
 * them); no meters (the doctor reports once and exits); the core's rules, not its runtime.
 */
class DoctorLayeringTest {
    private static final JavaClasses DOCTOR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.tcpsight.doctor");

    @Test
    void kafkaTypesOnlyWhereTheDoctorTalksToACluster() {
        noClasses()
                .that()
                .haveNameNotMatching(
                        ".*\\.(ClusterSurvey|ThroughputProbe|WriteProbe|ProbeTopic|EmbeddedBroker|DoctorCommand|FleetMembers)(\\$.*)?")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.kafka..")
                .check(DOCTOR);
    }

    @Test
    void noMetersAndNoRuntime() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.micrometer..",
                        "io.tcpsight.internal.runtime..",
                        "io.tcpsight.export..",
                        "io.tcpsight.kafka..")
                .check(DOCTOR);
    }

    @Test
    void thePublicFaceNamesNoInternalType() {
        assertEquals(Set.of(), PublicFace.internalTypesNamed(DOCTOR));
    }

    @Test
    void noTwoFilesUseEachOther() throws Exception {
        assertEquals(Set.of(), FileTies.twoWay(DOCTOR), "in the class files");
        assertEquals(Set.of(), FileTies.twoWayInSources(Path.of("src/main/java")), "in the sources");
    }

    @Test
    void noPublicMethodMayReturnNull() throws Exception {
        assertEquals(List.of(), NullReturns.in(Path.of("target/classes/io/tcpsight")), "unknown is empty: an Optional");
    }
}
