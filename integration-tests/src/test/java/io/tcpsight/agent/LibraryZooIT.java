package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.agent.ZooScore.Expected;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real client of each library beyond Java and librdkafka, each with a small fixed buffer or small
 * fetch sizes beside its default twin, 100 ms from one SASL broker with the agent: franz-go,
 * sarama and segmentio/kafka-go (lab/zoo-go, from the Go module proxy), kafka-python (PyPI) and
 * KafkaJS (npm). The agent must know each library and give each limited client its remedy in that
 * library's own keys, and no default twin a warning. Clients are told apart by their SASL user:
 * KafkaJS and kafka-go announce no software name (KIP-511), so their clients keep the library's
 * default client id, which is how a broker knows them.
 */
class LibraryZooIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    /**
     * Every client is watched at least this long, ten of the agent's rounds, so that a default twin has as
     * long to draw a wrong warning as its limited twin took to draw its finding and more.
     */
    private static final Duration AT_LEAST = Duration.ofSeconds(20);

    private static final Duration AT_MOST = Duration.ofSeconds(40);
    private static final String SMALL = "65536";

    /** By SASL user: what the client is, and the warn/critical finding it must get (none: it stays silent). */
    private static final Map<String, Expected> EXPECTED = new LinkedHashMap<>();

    /** By SASL user: the library the agent must name. */
    private static final Map<String, String> LIBRARY = new HashMap<>();

    static {
        limited(
                "franzgosmallfetch",
                "franz-go",
                "kgo.FetchMaxBytes and FetchMaxPartitionBytes 65536",
                "fetch-size-below-bdp client/franz-go:kgo.FetchMaxBytes=*");
        silent("franzgodefault", "franz-go");
        limited(
                "saramasmallfetch",
                "sarama",
                "Consumer.Fetch.Default and .Max 65536",
                // its Fetch requests ask for 52428800 in all, the size the rule would give: only the 64 KiB a
                // partition (Fetch.Default) changes, and a remedy names only what changes
                "fetch-size-below-bdp client/sarama:Config.Consumer.Fetch.Default=*");
        silent("saramadefault", "sarama");
        limited(
                "kafkagosmallfetch",
                "kafka-go",
                "ReaderConfig.MaxBytes 65536",
                "fetch-size-below-bdp client/kafka-go:ReaderConfig.MaxBytes=*");
        silent("kafkagodefault", "kafka-go");
        limited(
                "kafkapython64k",
                "kafka-python",
                "socket_options SO_RCVBUF 65536",
                "receive-window-limited client/kafka-python:socket_options=*");
        silent("kafkapythondefault", "kafka-python");
        limited(
                "kafkajssmallfetch",
                "kafkajs",
                "maxBytes and maxBytesPerPartition 65536",
                "fetch-size-below-bdp client/kafkajs:maxBytes=*");
        silent("kafkajsdefault", "kafkajs");
    }

    /** A limited client and the finding it must get. */
    private static void limited(String user, String library, String what, String finding) {
        EXPECTED.put(user, Expected.gets(library + ", " + what, finding));
        LIBRARY.put(user, library);
    }

    /** A client of the library's defaults: at the zoo's target it must stay silent (ZooScore.broker). */
    private static void silent(String user, String library) {
        EXPECTED.put(user, Expected.silent(library + ", defaults"));
        LIBRARY.put(user, library);
    }

    @Test
    void eachLibraryIsNamedAndItsLimitedClientsGetTheirRemedyInItsOwnKeys() throws Exception {
        LabPrerequisites.requireClientZoo();
        KernelLab lab = LAB.start(KernelLab.builder().link(Link.rtt(Duration.ofMillis(100))));
        KafkaBroker broker = ZooScore.broker(lab, EXPECTED.keySet());
        LabTopics.create(broker, "zoo", 1);
        LabTopics.fill(broker, "zoo", 3000, 10_000); // 30 MB: a 64 KiB fetch per 100 ms reads 0.6 MB/s

        String bootstrap = broker.bootstrapServers();
        ZooScore zoo = new ZooScore(
                EXPECTED,
                peer -> peer.principal() == null
                        ? null
                        : peer.principal().substring(peer.principal().indexOf(':') + 1));
        List<LabProcess> clients = new ArrayList<>();
        Duration observed;
        try {
            for (String library : List.of("franz-go", "sarama", "kafka-go")) {
                String prefix = library.replace("-", "");
                // kafka-go is known only by its default client id
                boolean defaultId = library.equals("kafka-go");
                clients.add(goConsumer(lab, library, bootstrap, prefix + "smallfetch", SMALL, defaultId));
                clients.add(goConsumer(lab, library, bootstrap, prefix + "default", "0", defaultId));
            }
            clients.add(pythonConsumer(lab, bootstrap, "kafkapython64k", SMALL));
            clients.add(pythonConsumer(lab, bootstrap, "kafkapythondefault", null));
            clients.add(nodeConsumer(lab, bootstrap, "kafkajssmallfetch", SMALL));
            clients.add(nodeConsumer(lab, bootstrap, "kafkajsdefault", null));

            long start = System.nanoTime();
            long elapsed = 0;
            while (elapsed < AT_MOST.toNanos() && (elapsed < AT_LEAST.toNanos() || !zoo.allExpectedSeen())) {
                Thread.sleep(1000);
                for (LabProcess client : clients) {
                    assertTrue(client.process().isAlive(), "a zoo client ended:\n" + client.output());
                }
                zoo.observe(broker);
                elapsed = System.nanoTime() - start;
            }
            observed = Duration.ofNanos(elapsed);
        } finally {
            clients.forEach(LabProcess::close);
        }
        String table =
                zoo.score("library zoo at 100 ms, one SASL broker with the agent, " + observed.toSeconds() + " s");
        assertTrue(zoo.wrong().isEmpty(), "wrong findings: " + zoo.wrong() + "\n" + table);
        for (Map.Entry<String, String> client : LIBRARY.entrySet()) {
            FindingView.Peer peer = zoo.seenAs(client.getKey());
            assertTrue(peer != null, client.getKey() + " never seen by the agent\n" + table);
            assertEquals(client.getValue(), peer.clientLibrary(), client.getKey() + " as the agent saw it: " + peer);
        }
    }

    /**
     * A consumer of "zoo" from its start in one of the Go libraries; fetchBytes "0" keeps the library's
     * defaults, and defaultId the library's own client id (else the user is the id).
     */
    private static LabProcess goConsumer(
            KernelLab lab, String library, String bootstrap, String user, String fetchBytes, boolean defaultId)
            throws Exception {
        return lab.execInClient(
                user,
                List.of(
                        LabPaths.zooGo().toString(),
                        "-library",
                        library,
                        "-brokers",
                        bootstrap,
                        "-topic",
                        "zoo",
                        "-client-id",
                        defaultId ? "" : user,
                        "-user",
                        user,
                        "-password",
                        user + "-secret",
                        "-fetch-bytes",
                        fetchBytes));
    }

    /** A kafka-python consumer of "zoo" from its start; with a receive buffer set through socket_options. */
    private static LabProcess pythonConsumer(KernelLab lab, String bootstrap, String user, String receiveBuffer)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(
                LabPaths.zooPython().toString(),
                "-u",
                LabPaths.zooScript("zoo-python/consume.py").toString(),
                bootstrap,
                "zoo",
                user,
                user,
                user + "-secret"));
        if (receiveBuffer != null) {
            command.add(receiveBuffer);
        }
        return lab.execInClient(user, command);
    }

    /** A KafkaJS consumer (group = user) of "zoo" from its start, with KafkaJS's default client id. */
    private static LabProcess nodeConsumer(KernelLab lab, String bootstrap, String user, String fetchBytes)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "env",
                "NODE_PATH=" + LabPaths.zooNodeModules(),
                "node",
                LabPaths.zooScript("zoo-node/consume.js").toString(),
                bootstrap,
                "zoo",
                user,
                user,
                user + "-secret"));
        if (fetchBytes != null) {
            command.add(fetchBytes);
        }
        return lab.execInClient(user, command);
    }
}
