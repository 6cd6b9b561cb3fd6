package io.tcpsight.lab;

import java.util.Comparator;
import java.util.Map;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The order of the suite's classes on its two lanes (docs/lab.md). The lab lane runs the classes
 * that share the host first, then those that take it whole ({@link HostCpu}), back to back; the
 * other lane runs its classes beside the first part, longest first. A class that takes the host
 * whole waits for the class beside it to end, and a class left beside waits for every whole one:
 * with the shared part longer than the other lane and its longest classes started first, neither
 * wait happens but at the one change of phase, and then for a short class. Within each part, by
 * the last measured time, longest first, then by name: the order is the same on every run.
 */
public final class LaneOrder implements ClassOrderer {
    /**
     * Seconds each class took in fresh-clone runs (2026-11-29, the mean of `0dbcace` and `f1c1fdc`,
     * the timelines SlowestTests prints); a class not listed counts as short, and runs last of its part.
     */
    private static final Map<String, Integer> MEASURED_SECONDS = Map.ofEntries(
            Map.entry("io.tcpsight.agent.BrokerAgentIT", 87),
            Map.entry("io.tcpsight.agent.RollingRestartIT", 86),
            Map.entry("io.tcpsight.agent.MetricsAtScaleIT", 79),
            Map.entry("io.tcpsight.mirror.DedicatedMirrorMakerLabIT", 37),
            Map.entry("io.tcpsight.connect.ConnectClusterReadaptationIT", 80),
            Map.entry("io.tcpsight.agent.NewConsumerProtocolLabIT", 51),
            Map.entry("io.tcpsight.doctor.DoctorIT", 38),
            Map.entry("io.tcpsight.matrix.JavaRuntimesLabIT", 32),
            Map.entry("io.tcpsight.lab.ContainerLabIT", 39),
            Map.entry("io.tcpsight.connect.WorkerEndpointsLabIT", 13),
            Map.entry("io.tcpsight.otlp.OtlpExportIT", 18),
            Map.entry("io.tcpsight.agent.IsolatingClassLoaderIT", 16),
            Map.entry("io.tcpsight.kafka.ReporterOwnSocketsLabIT", 46),
            Map.entry("io.tcpsight.alerts.AlertRulesIT", 14),
            Map.entry("io.tcpsight.kafka.ShippedClassPathLabIT", 26),
            Map.entry("io.tcpsight.agent.LossLabIT", 126),
            Map.entry("io.tcpsight.agent.AgentLabIT", 67),
            Map.entry("io.tcpsight.doctor.DoctorLabIT", 82),
            Map.entry("io.tcpsight.fleet.FleetLabIT", 76),
            Map.entry("io.tcpsight.connect.ConfigProviderParamsLabIT", 56),
            Map.entry("io.tcpsight.agent.ClientZooIT", 56),
            Map.entry("io.tcpsight.agent.BacklogLabIT", 25),
            Map.entry("io.tcpsight.agent.ClientTelemetryLabIT", 34),
            Map.entry("io.tcpsight.lab.KernelLabIT", 39),
            Map.entry("io.tcpsight.agent.LibraryZooIT", 33),
            Map.entry("io.tcpsight.connect.PluginOnAZeroMsLineLabIT", 26),
            // in fresh clones of `0927c70` and `707213c` (2026-12-02); the doctor's write probe alone, the same day
            Map.entry("io.tcpsight.mirror.DedicatedMirrorMakerRoundsLabIT", 60),
            Map.entry("io.tcpsight.doctor.DoctorWriteProbeLabIT", 43));

    /**
     * Runs its releases on threads of its own, several at once, which take the host's two CPUs:
     * last of the shared part, where the other lane should have ended (its last classes may still run
     * beside it: nothing there may claim a time or a rate).
     */
    private static final String OWN_THREADS = "io.tcpsight.matrix.VersionMatrixLabIT";

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors()
                .sort(Comparator.comparingInt(LaneOrder::part)
                        .thenComparing(
                                descriptor -> MEASURED_SECONDS.getOrDefault(
                                        descriptor.getTestClass().getName(), 0),
                                Comparator.reverseOrder())
                        .thenComparing(descriptor -> descriptor.getTestClass().getName()));
    }

    /** 0: beside the lab lane; 1: the lab lane's shared part; 2: the version matrix; 3: the host whole. */
    private static int part(ClassDescriptor descriptor) {
        Class<?> type = descriptor.getTestClass();
        if (type.getName().equals(OWN_THREADS)) {
            return 2;
        }
        Execution execution = type.getAnnotation(Execution.class);
        if (execution != null && execution.value() == ExecutionMode.CONCURRENT) {
            return 0;
        }
        for (ResourceLock lock : type.getAnnotationsByType(ResourceLock.class)) {
            if (lock.value().equals(HostCpu.LOCK) && lock.mode() == ResourceAccessMode.READ_WRITE) {
                return 3;
            }
        }
        return 1;
    }
}
