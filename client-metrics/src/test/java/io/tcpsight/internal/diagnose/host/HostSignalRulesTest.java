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
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.Role;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Is it this host or the path: the host rules and the retransmissions rule, from the rises alone. */
class HostSignalRulesTest {
    private static final ConnectionIdentity HOST = ConnectionIdentity.of(Role.BROKER, null, null);
    /** tcpsight.target.throughput.mbit=100, in bytes a second. */
    private static final double TARGET = 100e6 / 8;
    /**
     * Two CPUs idle 2 % of the interval, none stolen, this process running 80 % of their time and
     * its threads waiting for one 0.6 s a second.
     */
    private static final HostSignals.Cpu BUSY_CPUS = new HostSignals.Cpu(2, 0.02, 0, 0.8, 0.6);

    @Test
    void egressDropsOnTheDeviceOfRetransmittingConnectionsAreLocalAndNameThem() throws Exception {
        HostSignals signals = signals(device("eth0", "10.0.0.1", "tbf", 300, 0, Map.of(), 20_000), null);
        SendingConnection hurt = new SendingConnection(client("orders-consumer"), 40, 0);
        Finding finding =
                HostSignalRules.evaluate(signals, List.of(hurt), HOST, TARGET).get(0);
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
                        HOST,
                        TARGET)
                .get(0);
        assertEquals(Severity.WARN, few.severity());
        SendingConnection busy = new SendingConnection(client("busy-consumer"), 0, 0.9);
        assertEquals(
                "busy-consumer",
                HostSignalRules.evaluate(signals, List.of(busy), HOST, TARGET)
                        .get(0)
                        .connection()
                        .clientId()
                        .orElseThrow(),
                "a local qdisc drop is often no retransmission: a busy sender was hurt all the same");
        SendingConnection idle = new SendingConnection(client("idle"), 0, 0.1);
        assertEquals(
                Severity.INFO,
                HostSignalRules.evaluate(signals, List.of(idle), HOST, TARGET)
                        .get(0)
                        .severity());
        Finding nobodyHurt =
                HostSignalRules.evaluate(signals, List.of(), HOST, TARGET).get(0);
        assertEquals(Severity.INFO, nobodyHurt.severity(), "drops no Kafka connection felt");
        assertEquals(Role.BROKER, nobodyHurt.connection().role());
        SendingConnection elsewhere =
                new SendingConnection(client("c").withLocal(new InetSocketAddress("10.9.9.9", 50000)), 40, 0);
        assertEquals(
                Severity.INFO,
                HostSignalRules.evaluate(signals, List.of(elsewhere), HOST, TARGET)
                        .get(0)
                        .severity(),
                "a connection on another device is not this device's");
        assertTrue(HostSignalRules.evaluate(
                        signals(device("eth0", "10.0.0.1", "fq_codel", 0, 0, Map.of(), 20_000), null),
                        List.of(hurt),
                        HOST,
                        TARGET)
                .isEmpty());
    }

    @Test
    void aCloudAllowanceAndTheDriverCountAsLocalDropsWithTheirOwnRemedy() throws Exception {
        HostSignals signals = signals(
                device("ens5", "10.0.0.1", "mq", 0, 12, Map.of("bw_out_allowance_exceeded", 80L), 50_000), null);
        Finding finding = HostSignalRules.evaluate(
                        signals, List.of(new SendingConnection(client("c"), 9, 0)), HOST, TARGET)
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
                HostSignalRules.evaluate(inbound, List.of(), HOST, TARGET).isEmpty(),
                "an inbound allowance drops nothing leaving");
    }

    @Test
    void cpuThrottlingIsWarnAndCriticalFromAQuarterOfThePeriods() throws Exception {
        HostSignals some = signals(null, new HostSignals.Throttling("/kafka", 100, 10, 0.4, 0.5));
        Finding warn = HostSignalRules.evaluate(some, List.of(), HOST, TARGET).get(0);
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
                HostSignalRules.evaluate(much, List.of(), HOST, TARGET).get(0).severity());
        HostSignals none = signals(null, new HostSignals.Throttling("/kafka", 100, 0, 0, 0.5));
        assertTrue(HostSignalRules.evaluate(none, List.of(), HOST, TARGET).isEmpty());
    }

    @Test
    void oneQueueCarryingNearlyEverythingIsSkewed() throws Exception {
        HostSignals skewed =
                new HostSignals(10, List.of(queues("eth0", List.of(9_500L, 100L, 200L, 200L))), null, null);
        Finding finding =
                HostSignalRules.evaluate(skewed, List.of(), HOST, TARGET).get(0);
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
                                HOST,
                                TARGET)
                        .isEmpty(),
                "spread");
        assertTrue(
                HostSignalRules.evaluate(
                                new HostSignals(10, List.of(queues("eth0", List.of(900L, 0L))), null, null),
                                List.of(),
                                HOST,
                                TARGET)
                        .isEmpty(),
                "too few packets to say");
        assertTrue(
                HostSignalRules.evaluate(
                                new HostSignals(10, List.of(queues("eth0", List.of(90_000L))), null, null),
                                List.of(),
                                HOST,
                                TARGET)
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
        HostSignals signals =
                new HostSignals(10, devices, 0L, new HostSignals.Throttling("/kafka", 100, 25, 2.0, 0.5), BUSY_CPUS);
        List<String> order = new ArrayList<>();
        for (Finding finding : HostSignalRules.evaluate(
                signals, List.of(new SendingConnection(client("slow"), 0, 0.9, 0.5 * TARGET)), HOST, TARGET)) {
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
                        "cpu-throttled",
                        "host-cpu-busy"),
                order);
    }

    @Test
    void busyCpusWithAFlowShortOfTheTargetSayWhoTookThem() {
        SendingConnection consumer = new SendingConnection(client("replication-consumer"), 0, 0.2, 0.76 * TARGET);
        SendingConnection heartbeat = new SendingConnection(client("coordinator"), 0, 0.01, 1_000);
        Finding finding = cpuBusy(BUSY_CPUS, List.of(heartbeat, consumer)).orElseThrow();
        assertEquals(RuleId.HOST_CPU_BUSY, finding.rule());
        assertEquals(Severity.INFO, finding.severity(), "no key lifts it, and a host hot in bursts is not wrong");
        assertEquals(Role.BROKER, finding.connection().role(), "the host's finding, not a connection's");
        assertEquals(2, ((Number) finding.evidence("cores").orElseThrow().value()).intValue());
        assertEquals(0.02, (double) finding.evidence("idleShare").orElseThrow().value(), 1e-9);
        assertEquals(
                0.8, (double) finding.evidence("processShare").orElseThrow().value(), 1e-9);
        assertEquals(100.0, (double) finding.evidence("target").orElseThrow().value(), 1e-9);
        assertEquals(
                76.0,
                (double) finding.evidence("fastestShortFlow").orElseThrow().value(),
                1e-9);
        assertEquals(
                1,
                ((Number) finding.evidence("connectionsHurt").orElseThrow().value()).intValue(),
                "the heartbeat moved next to nothing and was not busy: not a flow short of the target");
        assertEquals(
                "replication-consumer",
                finding.evidence("hurtClients").orElseThrow().value());
        assertEquals(
                "more than 2 cores: this process ran 1.6 of them",
                settings(finding).get("host:CPU for this host's flows"));
        assertTrue(
                finding.remedy()
                        .why()
                        .startsWith("the host's 2 CPUs had nothing to run for 2% of the last 10 s and this process's"
                                + " threads waited for one 0.60 s a second, while 1 of its flows moved below 80% of the"
                                + " 100 Mbit/s target (the fastest 76.0 Mbit/s)"),
                finding.remedy().why());
    }

    @Test
    void idleCpusOrFlowsAtTheTargetSayNothing() {
        SendingConnection busySender = new SendingConnection(client("c"), 0, 0.9, 0.5 * TARGET);
        assertTrue(cpuBusy(BUSY_CPUS, List.of(busySender)).isPresent());
        assertTrue(
                cpuBusy(new HostSignals.Cpu(2, 0.05, 0, 0.8, 0.6), List.of(busySender))
                        .isPresent(),
                "5% idle: busy");
        assertTrue(
                cpuBusy(new HostSignals.Cpu(2, 0.051, 0, 0.8, 0.6), List.of(busySender))
                        .isEmpty(),
                "over 5% idle");
        assertTrue(
                HostSignalRules.evaluate(new HostSignals(10, List.of(), 0L, null), List.of(busySender), HOST, TARGET)
                        .isEmpty(),
                "no reading of the CPUs");
        assertTrue(cpuBusy(BUSY_CPUS, List.of()).isEmpty(), "no flow: busy CPUs alone are not a shortfall");
        // this process's threads waited for a CPU: a tenth of a thread's time or more; unknown counts as waiting
        assertTrue(cpuBusy(new HostSignals.Cpu(2, 0, 0, 0.3, 0.1), List.of(busySender))
                .isPresent());
        assertTrue(
                cpuBusy(new HostSignals.Cpu(2, 0, 0, 0.3, 0.099), List.of(busySender))
                        .isEmpty(),
                "CPUs busy while this process's threads barely waited (its own CPUs free, a cpuset)");
        Finding unknownWait = cpuBusy(new HostSignals.Cpu(2, 0, 0, 0.3, null), List.of(busySender))
                .orElseThrow();
        assertTrue(unknownWait.evidence("waitingThreads").isEmpty(), unknownWait.toString());
        assertTrue(
                unknownWait
                        .remedy()
                        .why()
                        .startsWith("the host's 2 CPUs had nothing to run for 0% of the last 10 s, while"),
                unknownWait.remedy().why());
        // short of the target: below 80 % of it
        assertTrue(cpuBusy(BUSY_CPUS, List.of(new SendingConnection(client("c"), 0, 0.9, 0.8 * TARGET)))
                .isEmpty());
        assertTrue(cpuBusy(BUSY_CPUS, List.of(new SendingConnection(client("c"), 0, 0.9, 0.799 * TARGET)))
                .isPresent());
        // a flow that is not busy sending (a consumer's end) counts from a tenth of the target
        assertTrue(cpuBusy(BUSY_CPUS, List.of(new SendingConnection(client("c"), 0, 0.49, 0.1 * TARGET)))
                .isPresent());
        assertTrue(cpuBusy(BUSY_CPUS, List.of(new SendingConnection(client("c"), 0, 0.49, 0.099 * TARGET)))
                .isEmpty());
        assertTrue(
                cpuBusy(BUSY_CPUS, List.of(new SendingConnection(client("c"), 0, 0.5, 1_000)))
                        .isPresent(),
                "a sender busy half the interval wants more, whatever it moved");
        assertTrue(
                HostSignalRules.evaluate(
                                new HostSignals(10, List.of(), 0L, null, BUSY_CPUS), List.of(busySender), HOST, 0)
                        .isEmpty(),
                "no target, no shortfall");
        assertTrue(
                HostSignalRules.evaluate(
                                new HostSignals(10, List.of(), 0L, null, BUSY_CPUS),
                                List.of(busySender),
                                HOST,
                                Double.NaN)
                        .isEmpty(),
                "an unknown target, no shortfall");
    }

    @Test
    void theRemedyIsWhoeverTookTheCpus() {
        SendingConnection flow = new SendingConnection(client("c"), 0, 0.9, 0.5 * TARGET);
        assertEquals(
                "CPUs of its own: the hypervisor took 12% of their time (steal)",
                settings(cpuBusy(new HostSignals.Cpu(4, 0.01, 0.12, 0.7, 0.6), List.of(flow))
                                .orElseThrow())
                        .get("host:CPU for this host's flows"),
                "steal first, even where this process ran most");
        assertEquals(
                "CPUs of its own: the hypervisor took 10% of their time (steal)",
                settings(cpuBusy(new HostSignals.Cpu(4, 0.01, 0.1, 0.7, 0.6), List.of(flow))
                                .orElseThrow())
                        .get("host:CPU for this host's flows"));
        assertEquals(
                "more than 4 cores: this process ran 2.8 of them",
                settings(cpuBusy(new HostSignals.Cpu(4, 0.01, 0.099, 0.7, 0.6), List.of(flow))
                                .orElseThrow())
                        .get("host:CPU for this host's flows"));
        assertEquals(
                "more than 4 cores: this process ran 2.0 of them",
                settings(cpuBusy(new HostSignals.Cpu(4, 0.01, 0, 0.5, 0.6), List.of(flow))
                                .orElseThrow())
                        .get("host:CPU for this host's flows"));
        assertEquals(
                "less work beside this process, or more than 4 cores: the other processes ran 2.4 of them, this one"
                        + " 1.6",
                settings(cpuBusy(new HostSignals.Cpu(4, 0, 0, 0.4, 0.6), List.of(flow))
                                .orElseThrow())
                        .get("host:CPU for this host's flows"));
        assertEquals(
                "more than 4 cores, or less work beside this process",
                settings(cpuBusy(new HostSignals.Cpu(4, 0, 0, null, 0.6), List.of(flow))
                                .orElseThrow())
                        .get("host:CPU for this host's flows"),
                "this process's own time unknown");
    }

    @Test
    void aConnectionCountsForTheHostFromItsLastIntervalAtTheRateItSentOrReceived() {
        IntervalStats receiving = IntervalStats.over(2)
                .bytesReceived(10_000_000)
                .bytesAcked(2_000)
                .build();
        SendingConnection consumer =
                SendingConnection.of(client("consumer"), receiving, 5_000_000).orElseThrow();
        assertEquals(5_000_000, consumer.rateBytesPerSecond(), 1e-6, "received, the larger: 10 MB over 2 s");
        assertFalse(consumer.busy());
        IntervalStats sending = IntervalStats.over(2)
                .busyMicros(1_800_000)
                .bytesAcked(8_000_000)
                .bytesReceived(2_000)
                .build();
        SendingConnection producer =
                SendingConnection.of(client("producer"), sending, 1e12).orElseThrow();
        assertEquals(4_000_000, producer.rateBytesPerSecond(), 1e-6, "sent, the larger");
        assertTrue(producer.busy(), "busy 0.9 of the interval");
        assertTrue(
                SendingConnection.of(
                                client("lost"),
                                IntervalStats.over(2).retransmittedSegments(3).build(),
                                1e12)
                        .isPresent(),
                "a retransmission alone");
        assertTrue(
                SendingConnection.of(client("idle"), IntervalStats.over(2).build(), 0)
                        .isEmpty(),
                "nothing sent, received or retransmitted");
        assertTrue(
                SendingConnection.of(client("heartbeat"), receiving, 5_000_001).isEmpty(),
                "not busy, and receiving below the least a flow of substance moves");
        assertEquals(
                0.1 * TARGET, HostSignalRules.flowOfSubstance(TARGET), 1e-9, "host-cpu-busy's tenth of the target");
    }

    @Test
    void theShortFlowsAreNamedFastestFirstAndAtMostFive() {
        List<SendingConnection> flows = new ArrayList<>();
        for (int flow = 1; flow <= 7; flow++) {
            flows.add(new SendingConnection(client("flow-" + flow), 0, 0.9, flow * 0.1 * TARGET));
        }
        Finding finding = cpuBusy(BUSY_CPUS, flows).orElseThrow();
        assertEquals(
                7,
                ((Number) finding.evidence("connectionsHurt").orElseThrow().value()).intValue(),
                "every flow below 80 %: 10-70 %");
        assertEquals(
                "flow-7,flow-6,flow-5,flow-4,flow-3",
                finding.evidence("hurtClients").orElseThrow().value());
        assertEquals(
                70.0,
                (double) finding.evidence("fastestShortFlow").orElseThrow().value(),
                1e-9);
    }

    private static Optional<Finding> cpuBusy(HostSignals.Cpu cpu, List<SendingConnection> sending) {
        return HostSignalRules.evaluate(new HostSignals(10, List.of(), 0L, null, cpu), sending, HOST, TARGET).stream()
                .filter(finding -> finding.rule() == RuleId.HOST_CPU_BUSY)
                .findFirst();
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
