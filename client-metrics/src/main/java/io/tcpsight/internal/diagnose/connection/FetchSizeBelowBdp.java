package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.longPath;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.rtt;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.MirrorClient;
import io.tcpsight.internal.model.OptionalValues;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tuning.Bdp;
import io.tcpsight.internal.tuning.BdpSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * fetch-size-below-bdp: a fetcher's sizes cap it below the target on this path. On the
 * client's side from its config; on the broker's side (the agent) from the sizes its Fetch
 * requests asked for, so any client library, and a follower's replica fetcher, is judged by
 * what it sent, in its own keys. Below one BDP a fetch the cap holds on any line. From one to
 * four, it holds where the line is about as fast as the target, which the flow itself shows:
 * busy fetching back to back, full responses, and less than the share of the target moved; or,
 * while a window or send buffer holds the flow now and so hides it, the limit that binds next
 * once that is lifted, named in the same round so that one restart applies both. MirrorMaker's
 * replication consumer, which forwards each poll before it polls again, is held to the sizing's
 * own aim; where its sizes meet it, what a poll takes of each response is named in the window's
 * round (the same rule: the fetch cycle is what it bounds).
 */
final class FetchSizeBelowBdp implements ConnectionRule {
    static final ConnectionRule RULE = new FetchSizeBelowBdp();

    private FetchSizeBelowBdp() {}

    /**
     * The share of the target a fetcher must be able to reach. A client waits for each fetch
     * response before it asks again, so a response of B bytes takes a round trip plus its own time
     * on the line: on a line as fast as the target, four BDPs a fetch reach 80% of it, the
     * sizing's nine 90%.
     */
    static final double FETCH_CEILING_SHARE = 0.8;

    /**
     * The share of the target MirrorMaker's replication consumer's sizes must allow by the model:
     * the sizing's own aim, nine BDPs a fetch. A MirrorMaker task forwards each poll to its target
     * before it polls again, and its consumer asks a broker again only for partitions it has
     * drained, so each cycle also spends the task's own time, which the model leaves out. Measured
     * across 100 ms at 100 Mbit/s (2026-12-01), a dedicated MirrorMaker 2 with Kafka's sizes, 6 MiB
     * a fetch over six partitions (83 % by the model), moved 69-70 % of the line once its window was
     * lifted, and 71.9-74.0 % with its producer to the target given 1 MiB batches as well (so the
     * fetch sizes held it, not the forwarding); sized for nine BDPs, 78.4-86.7 % in fifteen runs. The
     * flow itself is still judged against FETCH_CEILING_SHARE: a free flow that moves 80 % of the
     * target is not named.
     */
    static final double FORWARDING_CEILING_SHARE = 0.9;

    /**
     * Busy this share of an interval or more, neither window- nor buffer-limited, a fetcher fetches
     * back to back: it moves what its sizes allow.
     */
    static final double FETCHING_BACK_TO_BACK = 0.5;

    /**
     * A fetcher that moved at least this share of its fetch ceiling (of its fetch size a cycle)
     * got full responses: its sizes held it, not a topic with little new data.
     */
    static final double FULL_RESPONSE_SHARE = 0.5;

    /** The client.id prefix of KRaft's own raft client (raft-client-NODE), as a broker's agent sees it. */
    static final String RAFT_CLIENT = "raft-client-";

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        KafkaSettings kafka = facts.kafka();
        // a consumer's coordinator and bootstrap connections fetch nothing
        if (!facts.identity().bulkFlow().arrivesAt(Role.CLIENT)
                || kafka.fetchMaxBytes().isEmpty()
                || kafka.maxPartitionFetchBytes().isEmpty()
                || !longPath(facts, config)) {
            return Optional.empty();
        }
        int partitions = Math.max(1, kafka.partitionsPerBroker().orElse(1));
        double target = config.targetBytesPerSecond();
        long bdp = Bdp.bytes(facts.rttMicros(), target);
        long perFetch = bytesPerFetch(kafka);
        if (perFetch <= 0
                && facts.identity()
                        .clientId()
                        .filter(id -> id.startsWith(RAFT_CLIENT))
                        .isPresent()) {
            // KRaft's raft client fetches the metadata log with a partition size of 0 (seen on a controller
            // listener): no consumer's or follower's keys size it. A consumer set to 0 still gets one batch a
            // partition (KIP-74) and is judged
            return Optional.empty();
        }
        double cycleSeconds = facts.rttMicros() / 1e6 + perFetch / target;
        double ceiling = fetchCeiling(perFetch, facts.rttMicros(), target);
        double share = ceilingShare(facts);
        if (ceiling >= share * target) {
            // the sizes meet their aim; what is left to a MirrorMaker task is how much of a response one poll takes
            return forwardsEachPoll(facts)
                    ? aPollTakesPartOfAResponse(facts, config, perFetch, bdp, partitions, ceiling)
                    : Optional.empty();
        }
        Optional<IntervalStats> fetching = facts.interval().filter(interval -> {
            double moved = fetchedRate(facts, interval);
            return fetchBoundRatio(interval) >= FETCHING_BACK_TO_BACK
                    && moved < FETCH_CEILING_SHARE * target
                    && moved >= FULL_RESPONSE_SHARE * ceiling;
        });
        // judged by the model where the flow cannot show it: the other rules run only where that matters
        boolean predicted = perFetch >= bdp && fetching.isEmpty();
        if (predicted && !heldByWindowOrBuffer(facts, config)) {
            return Optional.empty();
        }
        Optional<Setting> secondFetcher = secondReplicaFetcher(facts, partitions);
        // Kafka spreads a topic's consecutive partitions over the fetcher threads, so with a second one each
        // connection carries half of them: sized for all of them on one connection, each response would carry half
        // of nine BDPs. Of an odd count the smaller half is sized for, so that each thread carries nine BDPs or more
        int partitionsAfter = secondFetcher.isPresent() ? Math.max(1, partitions / 2) : partitions;
        BdpSettings.Recommendation recommended = BdpSettings.recommend(new BdpSettings.Input(
                facts.rttMicros(),
                config.targetBytesPerSecond(),
                partitionsAfter,
                OptionalValues.orNull(facts.kernel().tcpRmemMax()),
                null,
                config.get(TcpsightConfig.FETCH_RECORD_BYTES)));
        List<Evidence> evidence = fetchCycle(facts, bdp, perFetch, partitions, ceiling);
        fetching.ifPresent(interval -> {
            double moved = fetchedRate(facts, interval);
            evidence.add(new Evidence("fetchBound", fetchBoundRatio(interval), "ratio of interval"));
            evidence.add(new Evidence("fetchRate", Rates.mbit(moved), "Mbit/s"));
            evidence.add(new Evidence("bytesPerCycle", Math.round(moved * cycleSeconds), "bytes"));
        });
        if (predicted) {
            evidence.add(HELD_NOW);
        }
        // every remedy changes something, and a fetch-bound flow only by asking for more: a size already in
        // effect (Kafka's default 50 MiB, say) or above the recommendation is not named
        List<Setting> settings = new ArrayList<>();
        if (recommended.fetchMaxBytes() > kafka.fetchMaxBytes().getAsLong()) {
            settings.addAll(
                    KafkaKeys.client(facts.identity(), "fetch.max.bytes", Long.toString(recommended.fetchMaxBytes())));
        }
        if (recommended.maxPartitionFetchBytes()
                != kafka.maxPartitionFetchBytes().getAsLong()) {
            settings.addAll(KafkaKeys.client(
                    facts.identity(),
                    "max.partition.fetch.bytes",
                    Long.toString(recommended.maxPartitionFetchBytes())));
        }
        settings.addAll(
                KafkaKeys.client(facts.identity(), "max.poll.records", Integer.toString(recommended.maxPollRecords())));
        secondFetcher.ifPresent(settings::add);
        // what the named sizes ask for on each connection: fetch.max.bytes only ever rises,
        // max.partition.fetch.bytes is the recommendation
        long perFetchAfter = Math.min(
                Math.max(recommended.fetchMaxBytes(), kafka.fetchMaxBytes().getAsLong()),
                recommended.maxPartitionFetchBytes() * partitionsAfter);
        if (ceiling >= FETCH_CEILING_SHARE * target && secondFetcher.isEmpty() && perFetchAfter <= perFetch) {
            // above any fetcher's 80 %, short of MirrorMaker's aim, with the sizes already asking for what the sizing
            // gives (its fetch.max.bytes stops at the broker's own): no size raises it, so no finding. Below 80 % the
            // finding stands, to say what holds the flow
            return Optional.empty();
        }
        Limit limit = new Limit(Limit.FETCH_SIZE, ceiling, fetchCeiling(perFetchAfter, facts.rttMicros(), target));
        return found(
                        RuleId.FETCH_SIZE_BELOW_BDP,
                        Severity.WARN,
                        facts.identity(),
                        evidence,
                        settings,
                        String.format(
                                "a fetcher waits for each fetch response before it asks again, so %d bytes per fetch take"
                                        + " a %.1f ms round trip plus their own time on the line: at most %.1f Mbit/s on a"
                                        + " line as fast as the target, below %.0f%% of its %.1f Mbit/s%s",
                                perFetch,
                                facts.rttMillis(),
                                Rates.mbit(ceiling),
                                share * 100,
                                Rates.mbit(config.targetBytesPerSecond()),
                                predicted
                                        ? "; a window or send buffer holds the flow below that now, and once it is lifted"
                                                + " the fetch size binds next: change both in one restart"
                                        : ""))
                .map(finding -> finding.withLimit(limit));
    }

    /** The evidence of a finding judged by the model alone: a window or send buffer holds the flow now. */
    private static final Evidence HELD_NOW = new Evidence("next", "held now by a window or send buffer", "");

    /** What a fetch cycle is made of: the round trip, the BDP, the bytes a fetch over its partitions, the ceiling. */
    private static List<Evidence> fetchCycle(
            ConnectionFacts facts, long bdp, long perFetch, int partitions, double ceiling) {
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(rtt(facts));
        evidence.add(new Evidence("bdp", bdp, "bytes"));
        evidence.add(new Evidence("bytesPerFetch", perFetch, "bytes"));
        evidence.add(new Evidence("partitionsPerBroker", partitions, "count"));
        evidence.add(new Evidence("fetchCeilingRate", Rates.mbit(ceiling), "Mbit/s"));
        return evidence;
    }

    /**
     * MirrorMaker's replication consumer, whose sizes meet the aim, while a window or send buffer
     * holds its flow now: a response holds more records (at tcpsight.fetch.record.bytes each) than
     * Kafka's default max.poll.records of 500 takes. The consumer asks a broker again only for the
     * partitions whose records its task has taken, and the task forwards each poll to the target
     * before it polls again, so once the window is lifted the task's polls, not the round trip, would
     * space the fetches: max.poll.records for a whole response is named in the same round. The broker
     * cannot read the consumer's max.poll.records, so the value is named where it is below that; and
     * a free flow is not judged by it (the flow cannot tell a task that polls a part from one that
     * forwards slowly). Measured across 100 ms at 50 Mbit/s (a dedicated MirrorMaker 2, 6 MiB a
     * fetch over six partitions, 91 % of the line by the model; 2026-12-01): with the window lifted and
     * max.poll.records at 500, 77.2 and 78.0 % of the line, the far broker busy 0.76-0.94 of each
     * interval with the window open and nothing said; with 7000 by hand, 85.2, 83.8 and 87.0 %, busy
     * 0.92-0.99; with the 6144 this names (1 KiB records), 83.2-86.0 % in fourteen runs, nothing said.
     */
    private static Optional<Finding> aPollTakesPartOfAResponse(
            ConnectionFacts facts, TcpsightConfig config, long perFetch, long bdp, int partitions, double ceiling) {
        long recordBytes = config.get(TcpsightConfig.FETCH_RECORD_BYTES);
        long recordsPerResponse = (perFetch + recordBytes - 1) / recordBytes;
        if (recordsPerResponse <= BdpSettings.MAX_POLL_RECORDS_DEFAULT || !heldByWindowOrBuffer(facts, config)) {
            return Optional.empty();
        }
        List<Evidence> evidence = fetchCycle(facts, bdp, perFetch, partitions, ceiling);
        evidence.add(new Evidence("recordsPerResponse", recordsPerResponse, "count"));
        evidence.add(HELD_NOW);
        String records = Long.toString(recordsPerResponse);
        List<Setting> settings = new ArrayList<>();
        for (Setting setting : KafkaKeys.client(facts.identity(), "max.poll.records", records)) {
            settings.add(setting.withNote("where it is below " + records + ": a whole response a poll"));
        }
        // now, the flow moves at most the fetch cycle's ceiling, and how far below it the task's polls hold it is the
        // task's own time, which neither end can compute (77-78 % of the line against the ceiling's 91 % in the lab);
        // once a poll takes a whole response, the ceiling is what is left
        Limit limit = new Limit(Limit.POLL, ceiling, ceiling);
        return found(
                        RuleId.FETCH_SIZE_BELOW_BDP,
                        Severity.WARN,
                        facts.identity(),
                        evidence,
                        settings,
                        String.format(
                                "a response of %d bytes holds about %d records of %d bytes, more than Kafka's default"
                                        + " of %d a poll; the consumer asks this broker again only for the partitions"
                                        + " whose records its task has taken, and the task forwards each poll to the"
                                        + " target before it polls again, so once the window or send buffer that holds"
                                        + " the flow now is lifted, its polls, not the %.1f ms round trip, space the"
                                        + " fetches: let one poll take a whole response, in the same restart",
                                perFetch,
                                recordsPerResponse,
                                recordBytes,
                                BdpSettings.MAX_POLL_RECORDS_DEFAULT,
                                facts.rttMillis()))
                .map(finding -> finding.withLimit(limit));
    }

    /**
     * The share of the target this fetcher's sizes must allow: the sizing's aim for MirrorMaker's
     * replication consumer (its client.id says so, at either end), which forwards each poll before
     * it polls again; 80 % for any other.
     */
    static double ceilingShare(ConnectionFacts facts) {
        return forwardsEachPoll(facts) ? FORWARDING_CEILING_SHARE : FETCH_CEILING_SHARE;
    }

    /** MirrorMaker's replication consumer (its client.id says so, at either end): its task forwards each poll. */
    private static boolean forwardsEachPoll(ConnectionFacts facts) {
        return facts.identity()
                .clientId()
                .flatMap(MirrorClient::fromClientId)
                .filter(MirrorClient::readsReplicatedData)
                .isPresent();
    }

    /** The bytes one fetch response to a broker carries at most: fetch.max.bytes, or a full response of each partition. */
    static long bytesPerFetch(KafkaSettings kafka) {
        int partitions = Math.max(1, kafka.partitionsPerBroker().orElse(1));
        return Math.min(
                kafka.fetchMaxBytes().getAsLong(),
                kafka.maxPartitionFetchBytes().getAsLong() * partitions);
    }

    /**
     * The most a fetcher moves with {@code perFetch} bytes a response: one response a cycle, a
     * round trip plus its own time on a line as fast as the target.
     */
    static double fetchCeiling(long perFetch, long rttMicros, double targetBytesPerSecond) {
        return perFetch / (rttMicros / 1e6 + perFetch / targetBytesPerSecond);
    }

    /**
     * A follower's fetcher thread asks again only once it has appended the last response, so each
     * fetch cycle spends a round trip and the follower's own append with nothing on the line; a
     * second fetcher thread (Kafka spreads a topic's consecutive partitions over them) transfers
     * while the first waits. Named for the first fetcher of a follower whose connection carries two
     * partitions or more, where Kafka's default of one thread holds them all: measured across 100 ms,
     * one fetcher with nine BDPs a fetch copied at 79% of the line, the follower's appends taking
     * the rest. The fetch sizes named beside it are sized for the half of the partitions each thread
     * then carries. Never named while a second fetcher of the same follower is connected to this
     * broker: two or more threads are in effect, and this connection's partitions are already its
     * thread's share.
     */
    static Optional<Setting> secondReplicaFetcher(ConnectionFacts facts, int partitions) {
        String clientId = facts.identity().clientId().orElse("");
        OptionalInt follower = ClientKind.followerBrokerId(clientId);
        if (follower.isEmpty()
                || partitions < 2
                || !clientId.endsWith("-fetcher-0")
                || facts.kafka().followerFetchersAtLeast().orElse(1) >= 2) {
            return Optional.empty();
        }
        return Optional.of(new Setting("broker", "num.replica.fetchers", "2")
                .withNote("on broker " + follower.getAsInt() + ", the follower, where it is Kafka's default of 1: a"
                        + " second fetcher thread transfers while the first waits a round trip and appends"));
    }

    /**
     * This end sends the fetch responses (the broker's), and another rule names what holds the flow
     * now: the fetcher's window (receive-window-limited), this end's send buffer as it filled
     * (send-buffer-limited) or as configured (small-send-buffer). The flow cannot show what its
     * fetch sizes allow until that is lifted, so they are judged by the model alone. At the
     * fetcher's own end a full window is its own reading, and the rule waits for the flow as before.
     */
    static boolean heldByWindowOrBuffer(ConnectionFacts facts, TcpsightConfig config) {
        if (!facts.identity().bulkFlow().leaves(facts.identity().role())) {
            return false;
        }
        for (ConnectionRule holding :
                List.of(ReceiveWindowLimited.RULE, SendBufferLimited.RULE, SmallSendBuffer.RULE)) {
            if (holding.judge(facts, config).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The share of the interval the connection had data in flight with neither the peer's window
     * nor the send buffer holding it: a consumer that processes slowly fills its window instead.
     */
    static double fetchBoundRatio(IntervalStats interval) {
        long free = interval.busyMicros() - interval.rwndLimitedMicros() - interval.sndbufLimitedMicros();
        return interval.seconds() <= 0 ? 0 : free / (interval.seconds() * 1e6);
    }

    /** What the fetch responses moved over the interval: sent at the broker's end, received at the client's. */
    static double fetchedRate(ConnectionFacts facts, IntervalStats interval) {
        return facts.identity().role() == Role.BROKER
                ? interval.sendRateBytesPerSecond()
                : interval.receiveRateBytesPerSecond();
    }
}
