package io.tcpsight.internal.diagnose.host;

import static io.tcpsight.internal.diagnose.RuleFacts.DEFAULTS;
import static io.tcpsight.internal.diagnose.RuleFacts.KERNEL_618;
import static io.tcpsight.internal.diagnose.RuleFacts.client;
import static io.tcpsight.internal.diagnose.RuleFacts.interval;
import static io.tcpsight.internal.diagnose.RuleFacts.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.connection.Retransmissions;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.HostSignals;
import io.tcpsight.internal.model.Role;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Is it this host or the path: the host rules and the retransmissions rule, from the rises alone. */
class HostSignalRulesTest {
    private static final ConnectionIdentity HOST = ConnectionIdentity.of(Role.BROKER, null, null);

    @Test
    void egressDropsOnTheDeviceOfRetransmittingConnectionsAreLocalAndNameThem() throws Exception {
        HostSignals signals = signals(device("eth0", "10.0.0.1", "tbf", 300, 0, Map.of(), 20_000), null);
        SendingConnection hurt = new SendingConnection(client("orders-consumer"), 40, 0);
        Finding finding = HostSignalRules.evaluate(signals, List.of(hurt), HOST).get(0);
        assertEquals(RuleId.HOST_EGRESS_DROPS, finding.rule());
        assertEquals(Severity.CRITICAL, finding.severity(), "300 of 20,300 packets: over 1%");
        assertEquals("orders-consumer", finding.connection().clientId().orElseThrow());
        assertEquals("eth0", finding.evidence("device").orElseThrow().value());
        assertEquals(300L, finding.evidence("egressDrops").orElseThrow().value());
        assertEquals(
                1, ((Number) finding.evidence("connectionsHurt").orElseThrow().value()).intValue());
        assertEquals(
                "a larger limit, or a higher rate where it shapes",
                settings(finding).get("host:tc qdisc tbf on eth0"));
        assertTrue(
                finding.remedy().why().contains("BBR would not help"),
                finding.remedy().why());

        Finding few = HostSignalRules.evaluate(
                        signals(device("eth0", "10.0.0.1", "fq_codel", 3, 0, Map.of(), 20_000), null),
                        List.of(hurt),
                        HOST)
                .get(0);
        assertEquals(Severity.WARN, few.severity());
        SendingConnection busy = new SendingConnection(client("busy-consumer"), 0, 0.9);
        assertEquals(
                "busy-consumer",
                HostSignalRules.evaluate(signals, List.of(busy), HOST)
                        .get(0)
                        .connection()
                        .clientId()
                        .orElseThrow(),
                "a local qdisc drop is often no retransmission: a busy sender was hurt all the same");
        SendingConnection idle = new SendingConnection(client("idle"), 0, 0.1);
        assertEquals(
                Severity.INFO,
                HostSignalRules.evaluate(signals, List.of(idle), HOST).get(0).severity());
        Finding nobodyHurt = HostSignalRules.evaluate(signals, List.of(), HOST).get(0);
        assertEquals(Severity.INFO, nobodyHurt.severity(), "drops no Kafka connection felt");
        assertEquals(Role.BROKER, nobodyHurt.connection().role());
        SendingConnection elsewhere =
                new SendingConnection(client("c").withLocal(new InetSocketAddress("10.9.9.9", 50000)), 40, 0);
        assertEquals(
                Severity.INFO,
                HostSignalRules.evaluate(signals, List.of(elsewhere), HOST)
                        .get(0)
                        .severity(),
                "a connection on another device is not this device's");
        assertTrue(HostSignalRules.evaluate(
                        signals(device("eth0", "10.0.0.1", "fq_codel", 0, 0, Map.of(), 20_000), null),
                        List.of(hurt),
                        HOST)
                .isEmpty());
    }

    @Test
    void aCloudAllowanceAndTheDriverCountAsLocalDropsWithTheirOwnRemedy() throws Exception {
        HostSignals signals = signals(
                device("ens5", "10.0.0.1", "mq", 0, 12, Map.of("bw_out_allowance_exceeded", 80L), 50_000), null);
        Finding finding = HostSignalRules.evaluate(signals, List.of(new SendingConnection(client("c"), 9, 0)), HOST)
                .get(0);
        assertEquals(92L, finding.evidence("egressDrops").orElseThrow().value());
        assertEquals(
                80L, finding.evidence("bw_out_allowance_exceeded").orElseThrow().value());
        Map<String, String> settings = settings(finding);
        assertEquals(
                "a larger instance type, or less traffic through this instance",
                settings.get("host:the instance's network allowance (bw_out_allowance_exceeded)"));
        assertEquals("a larger transmit ring", settings.get("host:ethtool -G ens5 tx"));
        HostSignals inbound =
                signals(device("ens5", "10.0.0.1", "mq", 0, 0, Map.of("bw_in_allowance_exceeded", 80L), 50_000), null);
        assertTrue(
                HostSignalRules.evaluate(inbound, List.of(), HOST).isEmpty(),
                "an inbound allowance drops nothing leaving");
    }

    @Test
    void cpuThrottlingIsWarnAndCriticalFromAQuarterOfThePeriods() throws Exception {
        HostSignals some = signals(null, new HostSignals.Throttling("/kafka", 100, 10, 0.4, 0.5));
        Finding warn = HostSignalRules.evaluate(some, List.of(), HOST).get(0);
        assertEquals(RuleId.CPU_THROTTLED, warn.rule());
        assertEquals(Severity.WARN, warn.severity());
        assertEquals("/kafka", warn.evidence("cgroup").orElseThrow().value());
        assertEquals(0.5, warn.evidence("cpuLimit").orElseThrow().value());
        assertTrue(
                settings(warn).values().iterator().next().contains("above 0.5 cores"),
                settings(warn).toString());
        HostSignals much = signals(null, new HostSignals.Throttling("/kafka", 100, 25, 2.0, 0.5));
        assertEquals(
                Severity.CRITICAL,
                HostSignalRules.evaluate(much, List.of(), HOST).get(0).severity());
        HostSignals none = signals(null, new HostSignals.Throttling("/kafka", 100, 0, 0, 0.5));
        assertTrue(HostSignalRules.evaluate(none, List.of(), HOST).isEmpty());
    }

    @Test
    void oneQueueCarryingNearlyEverythingIsSkewed() throws Exception {
        HostSignals skewed =
                new HostSignals(10, List.of(queues("eth0", List.of(9_500L, 100L, 200L, 200L))), null, null);
        Finding finding = HostSignalRules.evaluate(skewed, List.of(), HOST).get(0);
        assertEquals(RuleId.TX_QUEUE_SKEW, finding.rule());
        assertEquals(0, finding.evidence("busiestQueue").orElseThrow().value());
        assertTrue(
                HostSignalRules.evaluate(
                                new HostSignals(
                                        10,
                                        List.of(queues("eth0", List.of(2_600L, 2_400L, 2_500L, 2_500L))),
                                        null,
                                        null),
                                List.of(),
                                HOST)
                        .isEmpty(),
                "spread");
        assertTrue(
                HostSignalRules.evaluate(
                                new HostSignals(10, List.of(queues("eth0", List.of(900L, 0L))), null, null),
                                List.of(),
                                HOST)
                        .isEmpty(),
                "too few packets to say");
        assertTrue(
                HostSignalRules.evaluate(
                                new HostSignals(10, List.of(queues("eth0", List.of(90_000L))), null, null),
                                List.of(),
                                HOST)
                        .isEmpty(),
                "one queue only");
    }

    @Test
    void retransmissionsSayLocalAndDropBbrWhenThisHostDroppedElsePath() throws Exception {
        ConnectionFacts.Builder cubicFar = ConnectionFacts.builder(client("c"))
                .rttMicros(80_000)
                .congestionControl("cubic")
                .interval(interval(0.5, 0, 0, 300, 10_000));
        HostSignals dropping = signals(device("eth0", "10.0.0.1", "tbf", 250, 0, Map.of(), 10_000), null);
        Finding local = Retransmissions.RULE
                .judge(cubicFar.kernel(KERNEL_618.withHostSignals(dropping)).build(), DEFAULTS)
                .get();
        assertEquals("local", local.evidence("lossAt").orElseThrow().value());
        assertEquals(250L, local.evidence("localDrops").orElseThrow().value());
        assertTrue(
                local.remedy().settings().isEmpty(),
                "no BBR for a local loss: " + local.remedy().settings());
        assertTrue(
                local.remedy().why().contains("host-egress-drops"),
                local.remedy().why());

        HostSignals clean = signals(device("eth0", "10.0.0.1", "fq_codel", 0, 0, Map.of(), 10_000), null);
        Finding path = Retransmissions.RULE
                .judge(cubicFar.kernel(KERNEL_618.withHostSignals(clean)).build(), DEFAULTS)
                .get();
        assertEquals("path", path.evidence("lossAt").orElseThrow().value());
        assertEquals("bbr", settings(path).get("sysctl:net.ipv4.tcp_congestion_control"));

        Finding unknown = Retransmissions.RULE
                .judge(cubicFar.kernel(KERNEL_618).build(), DEFAULTS)
                .get();
        assertFalse(unknown.evidence("lossAt").isPresent(), "without host signals nothing is claimed");
        assertEquals("bbr", settings(unknown).get("sysctl:net.ipv4.tcp_congestion_control"));
    }

    /** For each device its drops, then its queues; then the host's CPU: the order a round has always given them. */
    @Test
    void eachDevicesRulesInTurnThenTheHostsCpu() throws Exception {
        List<HostSignals.Device> devices = new ArrayList<>();
        for (String name : List.of("eth0", "eth1")) {
            devices.add(new HostSignals.Device(
                    name,
                    List.of(InetAddress.getByName("10.0.0.1")),
                    "mq",
                    300,
                    300,
                    0,
                    0,
                    20_000,
                    Map.of(),
                    List.of(9_500L, 100L, 200L, 200L)));
        }
        HostSignals signals = new HostSignals(10, devices, 0L, new HostSignals.Throttling("/kafka", 100, 25, 2.0, 0.5));
        List<String> order = new ArrayList<>();
        for (Finding finding : HostSignalRules.evaluate(signals, List.of(), HOST)) {
            order.add(finding.rule().id()
                    + finding.evidence("device")
                            .map(device -> " " + device.value())
                            .orElse(""));
        }
        assertEquals(
                List.of(
                        "host-egress-drops eth0",
                        "tx-queue-skew eth0",
                        "host-egress-drops eth1",
                        "tx-queue-skew eth1",
                        "cpu-throttled"),
                order);
    }

    private static HostSignals signals(HostSignals.Device device, HostSignals.Throttling throttling) {
        return new HostSignals(10, device == null ? List.of() : List.of(device), 0L, throttling);
    }

    private static HostSignals.Device device(
            String name,
            String address,
            String qdisc,
            long qdiscDrops,
            long driverDrops,
            Map<String, Long> allowance,
            long txPackets)
            throws UnknownHostException {
        return new HostSignals.Device(
                name,
                List.of(InetAddress.getByName(address)),
                qdisc,
                qdiscDrops,
                qdiscDrops,
                0,
                driverDrops,
                txPackets,
                allowance,
                List.of());
    }

    private static HostSignals.Device queues(String name, List<Long> packets) throws UnknownHostException {
        return new HostSignals.Device(
                name, List.of(InetAddress.getByName("10.0.0.1")), "mq", 0, 0, 0, 0, 10_000, Map.of(), packets);
    }
}
