package io.tcpsight.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.RemoteProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A remote Java producer with every default, 100 ms from a broker with every default and the
 * agent, on a 200 Mbit/s line: the agent's warn and critical findings for it are applied as
 * written, round after round (broker keys to the broker, the producer's keys to the producer,
 * sysctls to the host each names), until it has nothing left to say; then the producer writes at
 * 80% of the line or more, by its own metrics, after at most two rounds of remedies.
 *
 * <p>The line queues 4,000 packets (2.4 bandwidth-delay products), as a router in front of a
 * 200 Mbit/s link does; with the delay line's default 1,000 (0.6 BDP) the remedied producer's
 * slow start overflows it and CUBIC's loss recovery, not the producer, becomes the subject.
 */
@ResourceLock(HostCpu.LOCK)
class RemoteProducerLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final Link LINE =
            Link.rtt(Duration.ofMillis(100)).rateMbit(200).queuePackets(4000);
    private static final double LINE_BYTES_PER_SECOND = 200e6 / 8;
    private static final String CLIENT_ID = "edge-producer";
    private static final String TOPIC = "edge-records";
    private static final int SECONDS = 10;
    private static final int MOST_ROUNDS_OF_REMEDIES = 2;

    @ParameterizedTest(name = "acks={0}")
    @ValueSource(strings = {"1", "all"})
    void aRemoteProducerWithEveryDefaultReachesTheLineOnceItsFindingsAreAppliedAsWritten(String acks) throws Exception {
        Map<String, String> broker = new LinkedHashMap<>();
        Map<String, String> producer = new LinkedHashMap<>(Map.of("acks", acks));
        Map<String, String> serverSysctls = new LinkedHashMap<>();
        Map<String, String> clientSysctls = new LinkedHashMap<>();
        List<String> story = new ArrayList<>();
        double rate = 0;
        int remedied = 0;
        for (int round = 0; ; round++) {
            Run run = run(round, broker, producer, serverSysctls, clientSysctls);
            rate = run.rate;
            story.add(String.format(
                    "round %d: %.2f MB/s (%.0f%% of the line) with broker %s, producer %s, sysctls %s %s; findings %s",
                    round,
                    rate / 1e6,
                    100 * rate / LINE_BYTES_PER_SECOND,
                    broker,
                    producer,
                    serverSysctls,
                    clientSysctls,
                    run.briefs()));
            if (run.findings.isEmpty() || round == MOST_ROUNDS_OF_REMEDIES) {
                break;
            }
            for (FindingView finding : run.findings) {
                apply(finding, broker, producer, serverSysctls, clientSysctls);
            }
            remedied++;
        }
        System.out.println("remote producer, acks=" + acks + ":\n" + String.join("\n", story));
        assertTrue(remedied <= MOST_ROUNDS_OF_REMEDIES, String.join("\n", story));
        assertTrue(
                rate >= 0.8 * LINE_BYTES_PER_SECOND,
                "the remedied producer reaches 80% of the line:\n" + String.join("\n", story));
        assertTrue(
                story.get(story.size() - 1).endsWith("findings []"),
                "nothing left to say:\n" + String.join("\n", story));
    }

    /** One round: a fresh lab and broker with the settings so far, the producer for SECONDS, the agent's findings for it. */
    private static Run run(
            int round,
            Map<String, String> brokerSettings,
            Map<String, String> producerSettings,
            Map<String, String> serverSysctls,
            Map<String, String> clientSysctls)
            throws Exception {
        LAB.closeAll();
        KernelLab.Builder builder = KernelLab.builder().link(LINE).clientInNamespace();
        serverSysctls.forEach(builder::serverSysctl);
        clientSysctls.forEach(builder::clientSysctl);
        KernelLab lab = LAB.start(builder);
        try (KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=2s,target.throughput.mbit=200")
                .overrides(brokerSettings)
                .start()) {
            LabTopics.create(broker, TOPIC, 4);
            List<String> args =
                    new ArrayList<>(List.of(broker.bootstrapServers(), TOPIC, CLIENT_ID, Integer.toString(SECONDS)));
            producerSettings.forEach((key, value) -> args.add(key + "=" + value));
            LabProcess producer =
                    lab.javaInClient("producer-" + round, RemoteProducer.class, args.toArray(new String[0]));
            Map<String, FindingView> findings = new LinkedHashMap<>();
            long end = System.nanoTime() + Duration.ofSeconds(SECONDS + 30).toNanos();
            while (!producer.output().contains("\ndone") && System.nanoTime() < end) {
                if (producer.output().contains("rate ")) {
                    Thread.sleep(200); // the run is over: its findings were read during it
                    continue;
                }
                for (FindingView finding : FindingView.list(broker.agentGet("/findings"))) {
                    if (CLIENT_ID.equals(finding.connection().clientId())
                            && !finding.severity().equals("info")) {
                        findings.putIfAbsent(finding.rule(), finding);
                    }
                }
                Thread.sleep(1000);
            }
            assertEquals(0, producer.awaitExit(Duration.ofSeconds(30)), producer.output());
            Matcher rate = producer.awaitLine("^rate (\\d+)$", Duration.ZERO);
            assertTrue(producer.output().contains("failed 0"), producer.output());
            return new Run(Double.parseDouble(rate.group(1)), new ArrayList<>(findings.values()));
        }
    }

    /** Applies a finding's remedy as written: each setting where its scope and note put it. */
    private static void apply(
            FindingView finding,
            Map<String, String> broker,
            Map<String, String> producer,
            Map<String, String> serverSysctls,
            Map<String, String> clientSysctls) {
        for (FindingView.Setting setting : finding.remedy().settings()) {
            switch (setting.scope()) {
                case "broker":
                    broker.put(setting.key(), setting.value());
                    break;
                case "client":
                    assertEquals("java", setting.library(), setting.brief());
                    producer.put(setting.key(), setting.value());
                    break;
                case "sysctl":
                    // a sysctl without a note is this end's host (the broker's); "on ...'s host" is the producer's
                    (setting.note() != null && setting.note().startsWith("on ") ? clientSysctls : serverSysctls)
                            .put(setting.key(), setting.value());
                    break;
                default:
                    throw new AssertionError("a setting this test cannot apply: " + setting.brief());
            }
        }
    }

    private static final class Run {
        final double rate;
        final List<FindingView> findings;

        Run(double rate, List<FindingView> findings) {
            this.rate = rate;
            this.findings = findings;
        }

        List<String> briefs() {
            List<String> briefs = new ArrayList<>();
            findings.forEach(finding -> briefs.add(finding.brief()));
            return briefs;
        }
    }
}
