package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.rtt;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * request-latency-beyond-path: a producer's own request latency to this broker, as it pushed it
 * (KIP-714), far beyond the round trip the kernel measures on the socket the push came on, while
 * the producer's bytes a round trip never filled the broker's receive window: the broker's time,
 * not the path's. A request waits on the path for its round trip, and beyond it only where the
 * bytes in flight fill the window (then the window rules speak); here they stay under half of it,
 * so what is left is the broker's (its request queue, the append, for acks=all the followers'
 * fetch, a quota's throttle). No client key or sysctl shortens that part, so the finding is
 * information, and says where to read the broker's split of it: it keeps the operator from tuning
 * the network for a delay the network does not make.
 *
 * <p>Every input is certain for the client that pushed, whichever of its connections the push came
 * on (a Java client pushes over the connection it bootstrapped on, not the one it produces on): its
 * latency and its bytes a second to this broker are its own per-broker figures (where it pushes no
 * byte rate, as librdkafka, the Produce requests on the same socket give it); the round trip is
 * its host's path to this broker, on its own socket; and the broker's receive buffer is the one it
 * sets on every accepted socket. An autotuned buffer reads small on a quiet socket: then the rule
 * takes the window for filled and stays silent.
 *
 * <p>What the rule cannot see it does not weigh: a request's own time on a line slower than the
 * target (its size over the line's rate) and a loss on the path the broker's socket did not
 * retransmit count as the broker's. Where this socket retransmitted in the interval, the path lost
 * packets and the rule stays silent. The pushed latency is the client's average over its metric
 * window (Kafka's default two samples of 30 s): the finding comes and goes up to a minute after
 * the broker's time does.
 *
 * <p>Producers only. A consumer's fetch latency is pushed over all its brokers together, and a
 * fetch that finds nothing waits fetch.max.wait.ms at the broker by design: neither is a certain
 * figure for one broker.
 */
final class RequestLatencyBeyondPath implements ConnectionRule {
    static final ConnectionRule RULE = new RequestLatencyBeyondPath();

    /**
     * The broker's part must be at least the path's (the latency at least twice the round trip) to
     * be "far beyond" it: below, the path still explains half of each request.
     */
    static final double BROKER_SHARE_AT_LEAST_PATH = 1.0;
    /**
     * And at least this many milliseconds: on a short path a few milliseconds of append and
     * acknowledgement are the broker's ordinary work, not a finding.
     */
    static final double LEAST_BROKER_MS = 10.0;
    /**
     * The producer's bytes a round trip under this share of the broker's receive window: the window
     * never filled, so no request waited on it for another round trip.
     */
    static final double WINDOW_SHARE_UNFILLED = 0.5;

    private RequestLatencyBeyondPath() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        if (facts.identity().role() != Role.BROKER || !facts.established() || facts.rttMicros() <= 0) {
            return Optional.empty();
        }
        OptionalDouble pushedLatency = pushed(facts, Figure.PRODUCER_REQUEST_LATENCY_AVG_MS);
        OptionalDouble bytesPerSecond = sendRate(facts);
        long window = receiveWindow(facts);
        if (pushedLatency.isEmpty() || bytesPerSecond.isEmpty() || !(bytesPerSecond.getAsDouble() > 0)) {
            return Optional.empty(); // a producer that sent nothing lately: its average is of requests that are over
        }
        double latencyMs = pushedLatency.getAsDouble();
        double rttMs = facts.rttMicros() / 1000.0;
        long bytesPerRoundTrip = Math.round(bytesPerSecond.getAsDouble() * facts.rttMicros() / 1e6);
        if (bytesPerRoundTrip >= WINDOW_SHARE_UNFILLED * window) {
            // the window may have held requests back (or is not known, 0): the path's part is not one round trip
            return Optional.empty();
        }
        if (facts.interval()
                .map(interval -> interval.retransmittedSegments() > 0)
                .orElse(false)) {
            return Optional.empty(); // the path lost packets: a timeout or a cut window may be the extra time
        }
        double brokerMs = latencyMs - rttMs;
        if (brokerMs < LEAST_BROKER_MS || brokerMs < BROKER_SHARE_AT_LEAST_PATH * rttMs) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        ClientWords.add(facts, evidence, Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, Figure.PRODUCER_OUTGOING_BYTE_RATE);
        evidence.add(rtt(facts));
        evidence.add(new Evidence("bytesPerRoundTrip", bytesPerRoundTrip, "bytes"));
        evidence.add(new Evidence("brokerReceiveWindow", window, "bytes"));
        evidence.add(new Evidence("brokerTime", Math.round(brokerMs * 10) / 10.0, "ms"));
        String why = String.format(
                "the producer's own request latency to this broker is %.1f ms on average, where its round trip to the"
                        + " broker is %.1f ms and its %d bytes a round trip never fill the broker's %d-byte receive"
                        + " window: %.1f ms of each request are the broker's, not the path's (its request queue, the"
                        + " append, for acks=all the followers' fetch, a quota's throttle), and no client or socket"
                        + " setting shortens them. The broker's kafka.network:type=RequestMetrics,name=RequestQueueTimeMs,"
                        + " LocalTimeMs, RemoteTimeMs and ThrottleTimeMs with request=Produce say which part",
                latencyMs, rttMs, bytesPerRoundTrip, window, brokerMs);
        return Optional.of(new Finding(
                RuleId.REQUEST_LATENCY_BEYOND_PATH,
                Severity.INFO,
                facts.identity(),
                evidence,
                new Remedy(List.of(), why)));
    }

    private static OptionalDouble pushed(ConnectionFacts facts, Figure figure) {
        return facts.pushed().map(pushed -> pushed.figure(figure)).orElse(OptionalDouble.empty());
    }

    /**
     * The producer's bytes a second to this broker: its own per-broker figure where it pushed one,
     * else what this socket's Produce requests carried (a client that pushes on the socket it
     * produces on); empty where neither is known.
     */
    private static OptionalDouble sendRate(ConnectionFacts facts) {
        OptionalDouble own = pushed(facts, Figure.PRODUCER_OUTGOING_BYTE_RATE);
        if (own.isPresent()) {
            return own;
        }
        return facts.kafka()
                .produceTraffic()
                .filter(traffic -> traffic.requests() > 0)
                .map(traffic -> OptionalDouble.of(traffic.bytesPerSecond()))
                .orElse(OptionalDouble.empty());
    }

    /**
     * The broker's receive window on this socket, at its narrowest reading: half its receive buffer
     * now (an autotuned buffer grows with the flow, and the kernel gives about half of it to the
     * window) and its clamp, where the kernel reports them; 0 where neither is known.
     */
    private static long receiveWindow(ConnectionFacts facts) {
        long halfBuffer = facts.receiveBufferBytes().isPresent()
                ? facts.receiveBufferBytes().getAsInt() / 2
                : 0;
        long clamp =
                facts.windowClampBytes().isPresent() ? facts.windowClampBytes().getAsInt() : 0;
        if (halfBuffer > 0 && clamp > 0) {
            return Math.min(halfBuffer, clamp);
        }
        return Math.max(halfBuffer, clamp);
    }
}
