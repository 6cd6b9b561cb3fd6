package io.tcpsight.connect.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
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
                .resideInAnyPackage("io.tcpsight.runtime..", "io.tcpsight.export..")
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
}
