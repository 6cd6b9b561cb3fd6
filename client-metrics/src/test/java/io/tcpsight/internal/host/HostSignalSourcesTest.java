package io.tcpsight.internal.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The host's sources decoded from recorded outputs: a qdisc dump taken on this machine's kernel
 * (6.18) from a namespace with a 4-queue veth under mq and a veth under a tbf that dropped (what
 * {@code tc -s qdisc} showed a moment later is beside it, qdisc-dump-mq-tbf.tc.txt: the same drops,
 * a few packets more), driver statistics in the form {@code ethtool -S}
 * prints them (virtio_net captured on this machine; ENA, mlx5, ixgbe and i40e written from the
 * drivers' string tables), and cgroup v1 and v2 files.
 */
class HostSignalSourcesTest {

    @Test
    void aRecordedQdiscDumpDecodesAsTcShowedIt() {
        List<QdiscStats.Qdisc> qdiscs = QdiscStats.decode(recordedDump());
        assertEquals(7, qdiscs.size(), qdiscs.toString());
        QdiscStats.Qdisc mq = find(qdiscs, 2, QdiscStats.ROOT);
        assertEquals("mq", mq.kind());
        assertEquals(309356, mq.packets());
        assertEquals("1:0", QdiscStats.Qdisc.handleText(mq.handle()));
        assertEquals(154679, find(qdiscs, 2, 0x10001).packets(), "queue 1:1");
        assertEquals(38670, find(qdiscs, 2, 0x10002).packets());
        assertEquals(38669, find(qdiscs, 2, 0x10003).packets());
        assertEquals(77338, find(qdiscs, 2, 0x10004).packets());
        QdiscStats.Qdisc tbf = find(qdiscs, 3, QdiscStats.ROOT);
        assertEquals("tbf", tbf.kind());
        assertEquals(131, tbf.packets());
        assertEquals(309224, tbf.drops());
        assertEquals(309598, tbf.overlimits());
        assertEquals(0, tbf.requeues());
    }

    @Test
    void aTruncatedDumpKeepsTheWholeMessagesBeforeTheCut() {
        ByteBuffer dump = recordedDump();
        ByteBuffer cut = dump.duplicate().order(ByteOrder.nativeOrder());
        cut.limit(dump.limit() - 10);
        List<QdiscStats.Qdisc> qdiscs = QdiscStats.decode(cut);
        assertEquals(6, qdiscs.size(), "the last message is cut: " + qdiscs);
    }

    @Test
    void driverStatisticsGiveAllowanceCountersAndPerQueuePackets() {
        Map<String, Long> ena = ethtool("ethtool-ena.txt");
        assertEquals(
                Map.of(
                        "bw_in_allowance_exceeded", 0L,
                        "bw_out_allowance_exceeded", 1841L,
                        "pps_allowance_exceeded", 12L,
                        "conntrack_allowance_exceeded", 0L,
                        "linklocal_allowance_exceeded", 0L),
                DriverStats.allowanceCounters(ena),
                "conntrack_allowance_available is a level, not an exceeded count");
        assertEquals(List.of(48211734L, 1204L), DriverStats.txQueuePackets(ena));
        assertEquals(
                List.of(201877331L, 203344120L, 202100998L, 204678928L),
                DriverStats.txQueuePackets(ethtool("ethtool-mlx5.txt")));
        assertEquals(
                List.of(2912001L, 22011L, 23100L, 24008L), DriverStats.txQueuePackets(ethtool("ethtool-ixgbe.txt")));
        assertEquals(List.of(1320112L, 1330287L), DriverStats.txQueuePackets(ethtool("ethtool-i40e.txt")));
        Map<String, Long> virtio = ethtool("ethtool-virtio_net.txt");
        assertEquals(
                List.of(), DriverStats.txQueuePackets(virtio), "this kernel's virtio_net counts kicks, not packets");
        assertEquals(Map.of(), DriverStats.allowanceCounters(virtio));
    }

    @Test
    void cgroupV1AndV2CpuStatGiveThrottlingAndTheLimit() {
        CgroupCpu v1 = CgroupCpu.of(resource("cgroup-v1/proc-self-cgroup"), resource("cgroup-v1/sys"))
                .orElseThrow();
        assertEquals("/kafka", v1.cgroup());
        assertEquals(500, v1.periods());
        assertEquals(120, v1.throttledPeriods());
        assertEquals(3_400_000, v1.throttledMicros(), "throttled_time is in nanoseconds");
        assertEquals(0.5, v1.limitCores().orElseThrow(), 1e-9);
        CgroupCpu v2 = CgroupCpu.of(resource("cgroup-v2/proc-self-cgroup"), resource("cgroup-v2/sys"))
                .orElseThrow();
        assertEquals("/system.slice/kafka.service", v2.cgroup());
        assertEquals(1200, v2.periods());
        assertEquals(300, v2.throttledPeriods());
        assertEquals(4_500_000, v2.throttledMicros());
        assertEquals(2.0, v2.limitCores().orElseThrow(), 1e-9);
        assertTrue(CgroupCpu.of(resource("cgroup-v2/nowhere"), resource("cgroup-v2/sys"))
                .isEmpty());
    }

    @Test
    void softnetSumsEveryCpusDropsAndSqueezes() {
        SoftnetStat softnet = SoftnetStat.parse(
                List.of(
                        "0001e2f3 00000000 00000004 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
                        "00011f00 0000000a 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001"));
        assertEquals(10, softnet.dropped());
        assertEquals(5, softnet.squeezed());
    }

    static ByteBuffer recordedDump() {
        String hex = text("qdisc-dump-mq-tbf.hex").replaceAll("\\s", "");
        // recorded on x86_64: little-endian, as the kernel wrote it
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static QdiscStats.Qdisc find(List<QdiscStats.Qdisc> qdiscs, int device, int parent) {
        return qdiscs.stream()
                .filter(qdisc -> qdisc.deviceIndex() == device && qdisc.parent() == parent)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no qdisc on #" + device + " under " + parent + ": " + qdiscs));
    }

    /** An {@code ethtool -S} listing as name to value. */
    static Map<String, Long> ethtool(String name) {
        Map<String, Long> stats = new LinkedHashMap<>();
        for (String line : text(name).split("\n")) {
            int colon = line.lastIndexOf(':');
            if (line.startsWith("     ") && colon > 0) {
                stats.put(
                        line.substring(0, colon).trim(),
                        Long.parseLong(line.substring(colon + 1).trim()));
            }
        }
        return stats;
    }

    private static String text(String name) {
        try (InputStream in = HostSignalSourcesTest.class.getResourceAsStream("/host/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }

    static Path resource(String name) {
        try {
            return Path.of(HostSignalSourcesTest.class.getResource("/host").toURI())
                    .resolve(name);
        } catch (URISyntaxException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
