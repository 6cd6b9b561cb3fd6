package io.tcpsight.doctor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.kafka.ProducerRequestCounts;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The write probe's producer judged as the reporter judges a producer at its own end: what it
 * sent each broker between two rounds, from its own metrics ({@link ProducerRequestCounts}),
 * beside its sockets' TCP_INFO over the same interval, through the same connection rules
 * ({@code produce-pipeline-below-bdp} among them).
 *
 * <p>A producer keeps its bootstrap connection open beside its connection to the same broker, and
 * the doctor names both by the broker's address: a broker's counts are the traffic of the socket
 * that carried at least half of them in the interval (the other carried a metadata request or
 * two), never of a socket that only shares its address. Not {@code ByteCountAttribution}'s exact
 * match, which names a socket's owner among many clients: it needs three rounds of equal counts and
 * never names under TLS, while here the doctor's producer is the one client of this process, a
 * judgement has two rounds, and a user's config may well be TLS; what is asked is only which of its
 * sockets to that broker carried the flow.
 */
final class ProducerConnectionJudge {
    private final ProducerRequestCounts counts = new ProducerRequestCounts();
    private final KafkaSettings settings;
    private final ClientConnectionJudge judge;
    /** The sockets the round under way gave a broker's counts to: the monitor's own thread, this one. */
    private final Map<TrackedConnection, ProduceTraffic> attributed = new LinkedHashMap<>();

    ProducerConnectionJudge(
            Map<InetSocketAddress, String> nodeIds,
            DoctorClient client,
            KafkaSettings settings,
            KernelFacts kernel,
            TcpsightConfig config) {
        this.settings = settings;
        this.judge = ClientConnectionJudge.watching(nodeIds, client, this::settingsOf, kernel, config);
    }

    /**
     * The producer's own metrics, as Kafka's producer hands them ({@code KafkaProducer.metrics()}):
     * fed before each round, so its counts are read at the round.
     */
    ProducerRequestCounts counts() {
        return counts;
    }

    /** The interval's start: the producer's counts so far, and its sockets' first samples. */
    void start() throws IOException {
        round();
    }

    /**
     * What the round at the interval's end found, and on what: the findings (where a rule fires on
     * both sockets to a broker, the one that carried its counts), and the requests and sockets the
     * broker's counts were judged on. No socket carried them: nothing of the flow was judged.
     */
    record Judgement(List<Finding> findings, long requests, int connections) {}

    /** The interval's end: what the producer sent since {@link #start}, judged on the socket that carried it. */
    Judgement judge() throws IOException {
        round();
        long requests =
                attributed.values().stream().mapToLong(ProduceTraffic::requests).sum();
        // a socket is its local address: the findings name the identity the round judged, the same socket's
        List<Finding> findings = judge.findings(identity -> identity.local().isPresent()
                && attributed.keySet().stream().anyMatch(connection -> identity.local()
                        .equals(connection.identity().local())));
        return new Judgement(findings, requests, attributed.size());
    }

    /** The connections the latest round judged. */
    List<TrackedConnection> connections() {
        return judge.lastConnections();
    }

    private void round() throws IOException {
        attributed.clear();
        counts.round(System.nanoTime());
        judge.round();
    }

    /** The settings a connection is judged with: the producer's, with its broker's traffic where it carried it. */
    KafkaSettings settingsOf(TrackedConnection connection) {
        Optional<ProduceTraffic> sent = connection.identity().nodeId().flatMap(counts::toNode);
        Optional<IntervalStats> carried = connection.latestInterval();
        if (sent.isPresent()
                && sent.get().requests() > 0
                && carried.isPresent()
                && carried.get().sendRateBytesPerSecond() * 2 >= sent.get().bytesPerSecond()) {
            attributed.put(connection, sent.get());
            return settings.withProduceTraffic(sent.get());
        }
        return settings;
    }

    /** The sockets the latest round gave a broker's counts to, with those counts (the monitor's own round's). */
    Map<TrackedConnection, ProduceTraffic> attributed() {
        return Map.copyOf(attributed);
    }
}
