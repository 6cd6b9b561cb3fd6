package io.tcpsight.internal.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.HostSignals;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

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
    }
}
