package io.tcpsight.internal.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.HostSignals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two readings of the recorded sources become one interval's rises. */
class HostCountersTest {
    private final List<String> unreadable = new ArrayList<>();

    @Test
    void risesPerDeviceComeFromTheRootQdiscTheDriverAndTheQueues() throws Exception {
        Reading first = new Reading(List.of(
                qdisc(3, QdiscStats.ROOT, "tbf", 100, 1000, 1200),
                qdisc(2, QdiscStats.ROOT, "mq", 1000, 0, 0),
                qdisc(2, 0x10001, "pfifo_fast", 600, 0, 0),
                qdisc(2, 0x10002, "pfifo_fast", 400, 0, 0)));
        first.driverDropped = 5;
        first.softnetDropped = 7;
        Reading second = new Reading(List.of(
                qdisc(3, QdiscStats.ROOT, "tbf", 150, 1400, 1700),
                qdisc(2, QdiscStats.ROOT, "mq", 3000, 0, 0),
                qdisc(2, 0x10001, "pfifo_fast", 2590, 0, 0),
                qdisc(2, 0x10002, "pfifo_fast", 410, 0, 0)));
        second.driverDropped = 9;
        second.softnetDropped = 7;
        HostCounters before = HostCounters.read(first, unreadable::add);
        HostSignals rises = HostCounters.read(second, unreadable::add).since(before);
        HostSignals.Device shaped = device(rises, "veth-tbf");
        assertEquals("tbf", shaped.rootQdisc());
        assertEquals(400, shaped.qdiscDrops());
        assertEquals(500, shaped.qdiscOverlimits());
        assertEquals(4, shaped.driverTxDropped());
        assertEquals(404, shaped.egressDrops());
        assertEquals(List.of(InetAddress.getByName("10.9.1.1")), shaped.addresses());
        HostSignals.Device queued = device(rises, "veth-mq");
        assertEquals(List.of(1990L, 10L), queued.txQueuePackets(), "the mq children are the transmit queues");
        assertEquals(0, rises.softnetDropped().getAsLong());
        assertEquals(List.of(), unreadable);
    }

    @Test
    void aQdiscReplacedOrAddedCountsFromZero() throws Exception {
        Reading first = new Reading(List.of(qdisc(3, QdiscStats.ROOT, "tbf", 100, 1000, 1200)));
        Reading second = new Reading(
                List.of(qdisc(3, QdiscStats.ROOT, "tbf", 5, 30, 40), qdisc(2, QdiscStats.ROOT, "mq", 3000, 9, 0)));
        HostSignals rises = HostCounters.read(second, unreadable::add).since(HostCounters.read(first, unreadable::add));
        assertEquals(30, device(rises, "veth-tbf").qdiscDrops(), "replaced qdisc: counted from zero");
        assertEquals(9, device(rises, "veth-mq").qdiscDrops(), "a root qdisc added: counted from zero");
    }

    @Test
    void aSourceThatFailsIsLeftOutAndSaidOnce() throws Exception {
        Reading broken = new Reading(List.of()) {
            @Override
            public List<QdiscStats.Qdisc> qdiscs() {
                throw new IllegalStateException("rtnetlink refused");
            }
        };
        HostSignalWatch watch = new HostSignalWatch(broken, unreadable::add);
        watch.next();
        watch.next();
        assertTrue(watch.latest().isPresent());
        assertEquals(1, unreadable.size(), unreadable.toString());
        assertTrue(unreadable.get(0).contains("qdisc statistics: rtnetlink refused"), unreadable.toString());
    }

    @Test
    void theCpusSharesComeFromTwoReadingsOfProcStatAndThisProcesssTime() {
        Reading first = new Reading(List.of());
        first.cpu = HostCpuTimes.parse(
                        List.of(
                                "cpu  1000 100 400 5000 300 10 90 0 0 0",
                                "cpu0 500 50 200 2500 150 5 45 0 0 0",
                                "cpu1 500 50 200 2500 150 5 45 0 0 0",
                                "intr 1"),
                        3_000_000_000L)
                .withThreadWaits(Map.of(1L, 100_000_000L, 2L, 500_000_000L));
        Reading second = new Reading(List.of());
        // 2 s of 2 CPUs, 400 ticks: user 250, nice 10, system 100, idle 6, iowait 2, irq 2, softirq 10, steal 20
        second.cpu = HostCpuTimes.parse(
                        List.of(
                                "cpu  1250 110 500 5006 302 12 100 20 0 0",
                                "cpu0 625 55 250 2503 151 6 50 10 0 0",
                                "cpu1 625 55 250 2503 151 6 50 10 0 0"),
                        6_200_000_000L)
                // thread 1 waited 0.3 s more, thread 2 ended, thread 3 began and waited 0.2 s
                .withThreadWaits(Map.of(1L, 400_000_000L, 3L, 200_000_000L));
        HostSignals.Cpu cpu = HostCounters.read(second, unreadable::add)
                .since(HostCounters.read(first, unreadable::add))
                .cpu()
                .orElseThrow();
        assertEquals(2, cpu.cores());
        assertEquals(8 / 400.0, cpu.idleShare(), 1e-12, "idle and iowait");
        assertEquals(20 / 400.0, cpu.stealShare(), 1e-12);
        assertEquals(3.2 / 4.0, cpu.processShare().orElseThrow(), 1e-12, "3.2 s of this process's time of 4 CPU-s");
        assertTrue(
                cpu.waitingThreads().orElseThrow() > 0, "0.3 s and a new thread's 0.2 s, over the readings' interval");

        second.cpu = HostCpuTimes.parse(List.of("cpu  1250 110 500 5006 302 12 100 20", "cpu0 1", "cpu1 1"), null);
        assertTrue(
                HostCounters.read(second, unreadable::add)
                        .since(HostCounters.read(first, unreadable::add))
                        .cpu()
                        .orElseThrow()
                        .processShare()
                        .isEmpty(),
                "this process's time unknown in one reading");
        assertTrue(rises(second, first).cpu().orElseThrow().waitingThreads().isEmpty(), "its threads' waits unknown");
        Reading threeCpus = new Reading(List.of());
        threeCpus.cpu =
                HostCpuTimes.parse(List.of("cpu  1250 110 500 5006 302 12 100 20", "cpu0 1", "cpu1 1", "cpu2 1"), 1L);
        assertTrue(
                HostCounters.read(threeCpus, unreadable::add)
                        .since(HostCounters.read(first, unreadable::add))
                        .cpu()
                        .isEmpty(),
                "a CPU brought on line between the readings: the sums are not of the same CPUs");
        assertTrue(
                HostCounters.read(first, unreadable::add)
                        .since(HostCounters.read(first, unreadable::add))
                        .cpu()
                        .isEmpty(),
                "no tick between the readings");
        assertTrue(
                HostCounters.read(new Reading(List.of()), unreadable::add)
                        .since(HostCounters.read(first, unreadable::add))
                        .cpu()
                        .isEmpty(),
                "no reading of the CPUs");
    }

    @Test
    void theThreadsWaitsAreReadOnlyInRoundsWhoseCpusWereBusyAndJudgedFromTheNext() {
        Reading source = new Reading(List.of());
        source.waits = Map.of(1L, 0L);
        source.cpu = HostCpuTimes.parse(List.of("cpu  100 0 0 900 0 0 0 0", "cpu0 1", "cpu1 1"), 0L);
        HostCounters first = HostCounters.read(source, unreadable::add, null);
        // idle 50 % since: no thread read
        source.cpu = HostCpuTimes.parse(List.of("cpu  200 0 0 1000 0 0 0 0", "cpu0 1", "cpu1 1"), 0L);
        HostCounters idle = HostCounters.read(source, unreadable::add, first);
        assertEquals(0, source.waitReads, "CPUs with time to spare: no thread read");
        assertTrue(idle.since(first).cpu().orElseThrow().waitingThreads().isEmpty());
        // idle 5 % since: read, but the first reading of them only starts the count
        source.cpu = HostCpuTimes.parse(List.of("cpu  390 0 0 1010 0 0 0 0", "cpu0 1", "cpu1 1"), 0L);
        source.waits = Map.of(1L, 1_000_000_000L);
        HostCounters busy = HostCounters.read(source, unreadable::add, idle);
        assertEquals(1, source.waitReads, "5 % idle: busy");
        assertTrue(busy.since(idle).cpu().isEmpty(), "the threads' waits begin this round: judged from the next");
        source.cpu = HostCpuTimes.parse(List.of("cpu  590 0 0 1010 0 0 0 0", "cpu0 1", "cpu1 1"), 0L);
        source.waits = Map.of(1L, 1_500_000_000L);
        HostCounters busier = HostCounters.read(source, unreadable::add, busy);
        assertEquals(2, source.waitReads);
        assertTrue(busier.since(busy).cpu().orElseThrow().waitingThreads().orElseThrow() > 0);
        // 5.3 % idle (10 of 190 ticks): not read
        source.cpu = HostCpuTimes.parse(List.of("cpu  770 0 0 1020 0 0 0 0", "cpu0 1", "cpu1 1"), 0L);
        HostCounters idler = HostCounters.read(source, unreadable::add, busier);
        assertEquals(2, source.waitReads, "over 5 % idle: no thread read");
        HostCounters.read(source, unreadable::add, idler);
        assertEquals(2, source.waitReads, "no tick since the reading before: nothing to call busy");
    }

    @Test
    void moreThreadsThanTheCapAreNotReadAndSaidWhy(@TempDir Path tasks) throws Exception {
        for (int thread = 1; thread <= 4; thread++) {
            Files.createDirectory(tasks.resolve(Integer.toString(thread)));
            Files.writeString(tasks.resolve(thread + "/schedstat"), "10 " + thread * 1000 + " 3\n");
        }
        Files.createDirectory(tasks.resolve("5")); // a thread that ended before its read: no schedstat
        assertEquals(Map.of(1L, 1000L, 2L, 2000L, 3L, 3000L, 4L, 4000L), ThreadWaits.read(tasks, 5));
        IllegalStateException over = assertThrows(IllegalStateException.class, () -> ThreadWaits.read(tasks, 4));
        assertTrue(
                over.getMessage().contains("5 threads in " + tasks + ", more than 4 are not read"), over.getMessage());
    }

    @Test
    void aCpuSourceThatFailsOrIsMissingLeavesTheCpusOutAndIsSaidOnce() {
        Reading broken = new Reading(List.of()) {
            @Override
            public Optional<HostCpuTimes> cpuTimes() {
                throw new NoClassDefFoundError("com/sun/management/OperatingSystemMXBean");
            }
        };
        HostSignalWatch watch = new HostSignalWatch(broken, unreadable::add);
        watch.next();
        watch.next();
        HostSignals latest = watch.latest().orElseThrow();
        assertTrue(latest.cpu().isEmpty());
        assertEquals(2, latest.devices().size(), "the devices are still read");
        assertEquals(1, unreadable.size(), unreadable.toString());
        assertTrue(
                unreadable.get(0).contains("CPU time: com/sun/management/OperatingSystemMXBean"),
                unreadable.toString());

        unreadable.clear();
        Reading waitsFail = new Reading(List.of()) {
            @Override
            public Optional<Map<Long, Long>> threadWaits() {
                throw new IllegalStateException("5000 threads in /proc/self/task, more than 4096 are not read");
            }
        };
        waitsFail.cpu = HostCpuTimes.parse(List.of("cpu  100 0 0 0 0 0 0 0", "cpu0 1"), 0L);
        HostSignalWatch busy = new HostSignalWatch(waitsFail, unreadable::add);
        busy.next();
        waitsFail.cpu = HostCpuTimes.parse(List.of("cpu  200 0 0 0 0 0 0 0", "cpu0 1"), 0L);
        busy.next();
        assertTrue(
                busy.latest().orElseThrow().cpu().orElseThrow().waitingThreads().isEmpty(),
                "the CPUs read, the waits unknown");
        assertEquals(1, unreadable.size(), unreadable.toString());
        assertTrue(unreadable.get(0).contains("threads' waits for a CPU: 5000 threads"), unreadable.toString());
    }

    @Test
    void theWatchReadsTheWaitsOfBusyRoundsAndJudgesThemPerSecondOfTheInterval() {
        Reading source = new Reading(List.of());
        HostSignalWatch watch = new HostSignalWatch(source, unreadable::add);
        for (int round = 1; round <= 3; round++) {
            source.cpu = HostCpuTimes.parse(List.of("cpu  " + round * 100 + " 0 0 0 0 0 0 0", "cpu0 1"), 0L);
            source.waits = Map.of(7L, round * 1_000_000_000L);
            watch.next();
        }
        assertEquals(2, source.waitReads, "the second and third rounds, busy since the one before");
        assertTrue(watch.latest()
                        .orElseThrow()
                        .cpu()
                        .orElseThrow()
                        .waitingThreads()
                        .orElseThrow()
                > 0);

        HostCpuTimes before = HostCpuTimes.parse(List.of("cpu  100 0 0 0 0 0 0 0", "cpu0 1"), 0L)
                .withThreadWaits(Map.of(7L, 0L));
        HostCpuTimes after = HostCpuTimes.parse(List.of("cpu  300 0 0 0 0 0 0 0", "cpu0 1"), 0L)
                .withThreadWaits(Map.of(7L, 500_000_000L));
        HostSignals.Cpu cpu = new HostCounters(2_000_000_000L, List.of(), null, null, after)
                .since(new HostCounters(0L, List.of(), null, null, before))
                .cpu()
                .orElseThrow();
        assertEquals(0.25, cpu.waitingThreads().orElseThrow(), 1e-12, "0.5 s waited over a 2 s interval");
    }

    @Test
    void procStatWithoutStealOrCpuLinesIsReadOrRefused() throws Exception {
        HostCpuTimes old = HostCpuTimes.parse(List.of("cpu  10 0 5 100 1 0 2", "cpu0 10 0 5 100 1 0 2"), null);
        assertEquals(17, old.busyTicks(), "user, nice, system, irq and softirq");
        assertEquals(101, old.idleTicks());
        assertEquals(0, old.stealTicks(), "a kernel without the steal column");
        assertEquals(1, old.cores());
        for (List<String> broken : List.of(
                List.of("cpu  10 0 5 100 1 0", "cpu0 1"),
                List.of("cpu0 10 0 5 100 1 0 2"),
                List.of("cpu  1 2 3 4 5 6 7"))) {
            try {
                HostCpuTimes.parse(broken, null);
                throw new AssertionError("read: " + broken);
            } catch (IllegalArgumentException refused) {
                // a short cpu line, no cpu line, no cpuN line
            }
        }
        Path stat = Files.createTempFile("stat", "");
        try {
            Files.writeString(stat, "cpu  x\n");
            assertThrows(IllegalArgumentException.class, () -> HostCpuTimes.read(stat, null), "not /proc/stat's form");
        } finally {
            Files.delete(stat);
        }
    }

    @Test
    void eachThreadsWaitForACpuIsReadAndRisesAcrossThreadsThatComeAndGo() throws Exception {
        assertEquals(801_183L, ThreadWaits.parse("25268 801183 1\n"));
        assertThrows(IllegalArgumentException.class, () -> ThreadWaits.parse("25268"));
        assertEquals(
                0.7,
                ThreadWaits.waitedSeconds(
                        Map.of(1L, 1_000_000_000L, 2L, 5_000_000_000L, 4L, 900_000_000L),
                        Map.of(1L, 1_400_000_000L, 3L, 200_000_000L, 4L, 100_000_000L)),
                1e-12,
                "0.4 s more of thread 1; thread 3 new, 0.2 s; thread 4's id reused, 0.1 s; thread 2 gone");
        assertThrows(UncheckedIOException.class, () -> ThreadWaits.read(Path.of("/nonexistent")));
        assertThrows(UncheckedIOException.class, () -> HostCpuTimes.read(Path.of("/nonexistent"), null));
    }

    private HostSignals rises(Reading now, Reading earlier) {
        return HostCounters.read(now, unreadable::add).since(HostCounters.read(earlier, unreadable::add));
    }

    private static HostSignals.Device device(HostSignals signals, String name) {
        return signals.devices().stream()
                .filter(device -> device.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name));
    }

    private static QdiscStats.Qdisc qdisc(
            int device, int parent, String kind, long packets, long drops, long overlimits) {
        return new QdiscStats.Qdisc(
                device, parent == QdiscStats.ROOT ? 0x10000 : 0, parent, kind, packets, drops, overlimits, 0);
    }

    /** One reading of a host with a tbf-shaped veth (index 3) and a two-queue veth under mq (index 2). */
    private static class Reading implements HostSources {
        private final List<QdiscStats.Qdisc> qdiscs;
        long driverDropped;
        long softnetDropped;
        HostCpuTimes cpu;
        Map<Long, Long> waits;
        int waitReads;

        Reading(List<QdiscStats.Qdisc> qdiscs) {
            this.qdiscs = qdiscs;
        }

        @Override
        public List<NetDevice> devices() throws IOException {
            return List.of(
                    new NetDevice("lo", 1, List.of(InetAddress.getLoopbackAddress())),
                    new NetDevice("veth-mq", 2, List.of(InetAddress.getByName("10.9.0.1"))),
                    new NetDevice("veth-tbf", 3, List.of(InetAddress.getByName("10.9.1.1"))));
        }

        @Override
        public Map<String, Long> deviceStatistics(String device) {
            return Map.of("tx_dropped", device.equals("veth-tbf") ? driverDropped : 0L, "tx_packets", 1000L);
        }

        @Override
        public List<QdiscStats.Qdisc> qdiscs() {
            return qdiscs;
        }

        @Override
        public Map<String, Long> driverStatistics(String device) {
            return Map.of();
        }

        @Override
        public Optional<SoftnetStat> softnet() {
            return Optional.of(new SoftnetStat(softnetDropped, 0));
        }

        @Override
        public Optional<CgroupCpu> cgroup() {
            return Optional.empty();
        }

        @Override
        public Optional<HostCpuTimes> cpuTimes() {
            return Optional.ofNullable(cpu);
        }

        @Override
        public Optional<Map<Long, Long>> threadWaits() {
            waitReads++;
            return Optional.ofNullable(waits);
        }
    }
}
