package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.HostSignals;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The host-cpu-busy rule: the host's CPUs had next to no idle time over the interval, this
 * process's threads waited for one, and flows of this process ran below the target meanwhile, so
 * the CPUs, not the path or a setting, may hold them (a replication flow whose window and
 * fetches were open moved 76-78 % of a 100 Mbit/s line in the lab while both CPUs were idle 0-2 %
 * of each second, and 85 % at 50 Mbit/s with room to spare, 2026-12-01). The waiting is what
 * makes it this process's: a process on CPUs of its own (a cpuset) beside busy ones never waits.
 * Info: no Kafka key or sysctl lifts it, a flow paced by its application is short of
 * the target on any host, and a host that runs hot in bursts (a start-up, a rebalance) is not
 * wrong; it says what may limit a slow flow where the window and sizing rules have nothing to say.
 */
final class HostCpuBusy {
    static final HostCpuBusy RULE = new HostCpuBusy();

    /** A flow below this share of the target is short of it (the fetch and window rules' 80 %). */
    static final double SHORT_OF_TARGET = 0.8;
    /**
     * A flow that is not busy as a sender (a consumer's end, which receives) counts when it moved
     * at least this share of the target: a flow of substance, not a heartbeat.
     */
    static final double SUBSTANTIAL = 0.1;
    /**
     * This process's threads waited for a CPU this long a second or more, summed over them (a
     * tenth of one thread's time): its work was held, not only the host busy.
     */
    static final double WAITING_AT_LEAST = 0.1;
    /** A hypervisor that took this share of the CPUs' time is what to change first. */
    static final double STEAL_FIRST = 0.1;
    /** This process ran this share of the CPUs' time or more: its own work fills them. */
    static final double OWN_WORK = 0.5;

    private HostCpuBusy() {}

    public Optional<Finding> judge(
            HostSignals signals,
            List<SendingConnection> sending,
            ConnectionIdentity host,
            double targetBytesPerSecond) {
        Optional<HostSignals.Cpu> measured = signals.cpu();
        if (measured.isEmpty()
                || measured.get().idleShare() > HostSignals.Cpu.BUSY_IDLE_SHARE
                || measured.get().waitingThreads().orElse(WAITING_AT_LEAST) < WAITING_AT_LEAST) {
            return Optional.empty();
        }
        List<SendingConnection> shortOfTarget = new ArrayList<>();
        for (SendingConnection connection : sending) {
            double rate = connection.rateBytesPerSecond();
            if (rate < SHORT_OF_TARGET * targetBytesPerSecond
                    && (connection.busy() || rate >= SUBSTANTIAL * targetBytesPerSecond)) {
                shortOfTarget.add(connection);
            }
        }
        if (shortOfTarget.isEmpty()) {
            return Optional.empty();
        }
        shortOfTarget.sort(Comparator.comparingDouble(SendingConnection::rateBytesPerSecond)
                .reversed());
        HostSignals.Cpu cpu = measured.get();
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("cores", cpu.cores(), "CPUs"));
        evidence.add(new Evidence("idleShare", cpu.idleShare(), "ratio of CPU time"));
        evidence.add(new Evidence("stealShare", cpu.stealShare(), "ratio of CPU time"));
        cpu.processShare().ifPresent(share -> evidence.add(new Evidence("processShare", share, "ratio of CPU time")));
        cpu.waitingThreads()
                .ifPresent(waiting -> evidence.add(new Evidence("waitingThreads", waiting, "threads on average")));
        evidence.add(new Evidence("target", Rates.mbit(targetBytesPerSecond), "Mbit/s"));
        evidence.add(
                new Evidence("fastestShortFlow", Rates.mbit(shortOfTarget.get(0).rateBytesPerSecond()), "Mbit/s"));
        SendingConnection.addHurt(evidence, shortOfTarget);
        return Optional.of(new Finding(
                RuleId.HOST_CPU_BUSY,
                Severity.INFO,
                host,
                evidence,
                new Remedy(
                        List.of(new Setting("host", "CPU for this host's flows", what(cpu))),
                        String.format(
                                "the host's %d CPUs had nothing to run for %.0f%% of the last %.0f s%s, while %d of"
                                        + " its flows moved below %.0f%% of the %.0f Mbit/s target (the fastest"
                                        + " %.1f Mbit/s): they may wait for a CPU rather than for the path, which no"
                                        + " Kafka key or sysctl lifts (a flow its application paces is short of the"
                                        + " target on any host)",
                                cpu.cores(),
                                cpu.idleShare() * 100,
                                signals.seconds(),
                                cpu.waitingThreads()
                                        .map(waiting -> String.format(
                                                " and this process's threads waited for one %.2f s a second", waiting))
                                        .orElse(""),
                                shortOfTarget.size(),
                                SHORT_OF_TARGET * 100,
                                Rates.mbit(targetBytesPerSecond),
                                Rates.mbit(shortOfTarget.get(0).rateBytesPerSecond())))));
    }

    /** What to change, from who took the CPUs: the hypervisor, this process, or the processes beside it. */
    private static String what(HostSignals.Cpu cpu) {
        if (cpu.stealShare() >= STEAL_FIRST) {
            return String.format(
                    "CPUs of its own: the hypervisor took %.0f%% of their time (steal)", cpu.stealShare() * 100);
        }
        Optional<Double> own = cpu.processShare();
        if (own.isPresent() && own.get() >= OWN_WORK) {
            return String.format(
                    "more than %d cores: this process ran %.1f of them", cpu.cores(), own.get() * cpu.cores());
        }
        return own.map(share -> String.format(
                        "less work beside this process, or more than %d cores: the other processes ran %.1f of them,"
                                + " this one %.1f",
                        cpu.cores(),
                        (1 - cpu.idleShare() - cpu.stealShare() - share) * cpu.cores(),
                        share * cpu.cores()))
                .orElse(String.format("more than %d cores, or less work beside this process", cpu.cores()));
    }
}
