package io.tcpsight.agent.internal.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.SampledConnections;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Each connection's requests reach the rules as its own, whichever way its id was learned, and a close lets go. */
class BrokerConnectionIdsTest {
    private static final InetSocketAddress LISTENER = new InetSocketAddress("127.0.0.1", 9092);
    private final ConnectionRegistry registry = new ConnectionRegistry(16);

    private TrackedConnection connection(int fd, int clientPort) {
        return registry.track(
                        fd,
                        0,
                        ConnectionIdentity.of(Role.BROKER, LISTENER, new InetSocketAddress("127.0.0.1", clientPort)))
                .orElseThrow();
    }

    /** A round: the sampler reads the connection, then the monitor judges it by what its requests told. */
    private static KafkaSettings round(BrokerConnectionIds ids, TrackedConnection connection) {
        SampledConnections.readAt(connection, System.nanoTime());
        return ids.requestedSettings(connection);
    }

    @Test
    void eachConnectionsProduceTrafficIsItsOwn() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection a = connection(7, 50001);
        TrackedConnection b = connection(8, 50002);
        ids.registered("a-1", a);
        ids.registered("b-1", b);
        round(ids, a); // each interval starts
        round(ids, b);
        ids.find("a-1").produced(16_384, 1);
        ids.find("b-1").produced(65_536, 2);
        ids.find("b-1").produced(65_536, 2);

        // each read of the settings ends its connection's interval: read once each
        ProduceTraffic ofA = round(ids, a).produceTraffic().orElseThrow();
        ProduceTraffic ofB = round(ids, b).produceTraffic().orElseThrow();
        assertEquals(1, ofA.requests());
        assertEquals(16_384, ofA.bytesPerRequest());
        assertEquals(2, ofB.requests());
        assertEquals(65_536, ofB.bytesPerRequest());
        // the flow began within that interval: it held the flow's start
        assertTrue(
                ofA.flowSecondsAtStart().getAsDouble() < 0,
                ofA.flowSecondsAtStart().toString());
        ids.find("a-1").produced(16_384, 1);
        ProduceTraffic laterOfA = round(ids, a).produceTraffic().orElseThrow();
        assertTrue(laterOfA.flowSecondsAtStart().getAsDouble() > 0, "the next interval began after the flow's start");
    }

    /**
     * A producer carried unread while idle (no request came, so none was counted) counts its requests
     * from where its socket's interval began, the round before, not from the last round that judged it:
     * the same span the socket's bytes are counted over.
     */
    @Test
    void aProducerReadAfterRoundsThatCarriedItCountsItsRequestsOverItsSocketsInterval() throws Exception {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection producer = connection(7, 50001);
        ids.registered("p-1", producer);
        long judged = System.nanoTime();
        SampledConnections.readAt(producer, judged); // the last round that read and judged it
        ids.requestedSettings(producer);
        Thread.sleep(300); // rounds that carried it unread: no request came
        long roundBefore = System.nanoTime(); // the last of them decided
        Thread.sleep(100);
        ids.find("p-1").produced(16_384, 1); // a request, after which this round reads it
        SampledConnections.readAfterCarried(producer, judged, roundBefore, System.nanoTime());
        ProduceTraffic traffic =
                ids.requestedSettings(producer).produceTraffic().orElseThrow();
        assertEquals(1, traffic.requests());
        assertTrue(
                traffic.requestsPerSecond() > 1 / 0.3,
                "one request over the round before (0.1 s), not over every round since it was judged (0.4 s): "
                        + traffic.requestsPerSecond() + " a second");
    }

    /** A socket's interval that began before the count's never lengthens it, nor starts a count before its first. */
    @Test
    void aSocketsEarlierIntervalLeavesTheProduceCountAsItIs() throws Exception {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection producer = connection(8, 50002);
        ids.registered("q-1", producer);
        long now = System.nanoTime();
        SampledConnections.readAfterCarried(producer, now - 2_000_000_000L, now - 1_000_000_000L, now);
        ids.find("q-1").produced(16_384, 1);
        assertFalse(ids.requestedSettings(producer).produceTraffic().isPresent(), "before the count's first interval");
        Thread.sleep(100);
        ids.find("q-1").produced(16_384, 1);
        SampledConnections.readAfterCarried(producer, now - 2_000_000_000L, now - 1_000_000_000L, System.nanoTime());
        ProduceTraffic traffic =
                ids.requestedSettings(producer).produceTraffic().orElseThrow();
        assertTrue(
                traffic.requestsPerSecond() > 1 / 0.5,
                "the requests over the count's own 0.1 s, not the socket's 1.1 s: " + traffic.requestsPerSecond());
    }

    /**
     * Requests that came after the round read the socket are the next round's, as the bytes they moved are: never a
     * rate over the moments between a round's read and its judgement.
     */
    @Test
    void requestsThatCameAfterTheRoundReadTheSocketAreCountedInTheNext() throws Exception {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection producer = connection(9, 50003);
        ids.registered("r-1", producer);
        round(ids, producer); // before its first request
        long read = System.nanoTime();
        SampledConnections.readAt(producer, read); // this round's read of the socket
        ids.find("r-1").produced(16_384, 1); // and a request after it
        Thread.sleep(100);
        assertFalse(ids.requestedSettings(producer).produceTraffic().isPresent(), "not this round's");
        Thread.sleep(100);
        ProduceTraffic next = round(ids, producer).produceTraffic().orElseThrow();
        double since = (System.nanoTime() - read) / 1e9;
        assertEquals(1, next.requests());
        // from that read on (0.2 s and more), not from the round that had none to tell (0.1 s)
        assertTrue(
                next.requestsPerSecond() <= 1 / 0.2 && next.requestsPerSecond() >= 1 / since,
                "over the " + since + " s since that read: " + next.requestsPerSecond() + " a second");
    }

    /**
     * The mean batch comes from the requests whose partitions were read, each one's bytes over its
     * own partitions, never the interval's mean request over the latest read request's partitions.
     */
    @Test
    void aBatchsMeanSizeComesFromTheRequestsWhosePartitionsWereRead() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection a = connection(7, 50001);
        ids.registered("a-1", a);
        round(ids, a);
        assertTrue(ids.find("a-1").readsPartitionsOfNextProduce(), "the first request's partitions are read");
        ids.find("a-1").produced(66_000, 4); // read: four batches of 16,500 bytes
        for (int i = 0; i < 3; i++) {
            ids.find("a-1").produced(16_500, -1); // not read
        }
        ProduceTraffic traffic = round(ids, a).produceTraffic().orElseThrow();
        assertEquals(4, traffic.requests());
        assertEquals(28_875, traffic.bytesPerRequest());
        assertEquals(4, traffic.partitionsPerRequest().getAsInt(), "the latest read request's partitions");
        assertEquals(16_500, traffic.meanBatchBytes().getAsDouble(), 0.001);
        assertEquals(
                16_500,
                traffic.withBuffer(33_554_432, 1_048_576).meanBatchBytes().getAsDouble(),
                0.001,
                "kept with the producer's pushed buffer");
        ids.find("a-1").produced(8_000, 2); // read: two half-full batches
        ProduceTraffic later = round(ids, a).produceTraffic().orElseThrow();
        assertEquals(
                4_000, later.meanBatchBytes().getAsDouble(), 0.001, "this interval's read requests, not the flow's");
        ids.find("a-1").produced(1_000, 0); // a request of no partition counts no batch
        ids.find("a-1").produced(16_500, -1); // not read
        ProduceTraffic unread = round(ids, a).produceTraffic().orElseThrow();
        assertEquals(4_000, unread.meanBatchBytes().getAsDouble(), 0.001, "the last interval with a read request");
    }

    /**
     * A follower's second fetcher, seen by its client.id on a connection of its own, tells the first's
     * fetch that two threads run, while that connection is open: the fetch rule then never names
     * num.replica.fetchers=2. Once it closes (a follower restarted with one fetcher), or the registry
     * let it go unseen, it counts no more. Another follower's fetcher and a consumer learn nothing
     * from it; a connection counts once however many requests name it; the table holds at most
     * {@link BrokerConnectionIds#MOST_FOLLOWERS} followers.
     */
    @Test
    void aFollowersSecondFetcherTellsItsFirstThatTwoThreadsRunWhileItIsOpen() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        ids.follow(registry);
        TrackedConnection first = fetching(ids, 7, 50001, "broker-2-fetcher-0");
        TrackedConnection otherFollower = fetching(ids, 8, 50002, "broker-3-fetcher-0");
        TrackedConnection consumer = fetching(ids, 9, 50003, "consumer-g-1");
        assertFalse(ids.requestedSettings(first).followerFetchersAtLeast().isPresent(), "no request named them yet");

        seen(ids, "broker-2-fetcher-0", 2);
        seen(ids, "consumer-g-1", -1);
        assertEquals(1, ids.requestedSettings(first).followerFetchersAtLeast().getAsInt());
        TrackedConnection second = fetching(ids, 10, 50004, "broker-2-fetcher-1");
        seen(ids, "broker-2-fetcher-1", 2);
        seen(ids, "broker-2-fetcher-1", 2);
        assertEquals(2, ids.requestedSettings(first).followerFetchersAtLeast().getAsInt());
        assertFalse(
                ids.requestedSettings(otherFollower).followerFetchersAtLeast().isPresent());
        assertFalse(ids.requestedSettings(consumer).followerFetchersAtLeast().isPresent());

        BrokerConnection secondsOwn = ids.find("broker-2-fetcher-1-1");
        ids.closed(second);
        assertEquals(
                1,
                ids.requestedSettings(first).followerFetchersAtLeast().getAsInt(),
                "a closed fetcher counts no more, however many requests named it");
        seenOn(ids, secondsOwn, "broker-2-fetcher-1", 2);
        assertEquals(
                1,
                ids.requestedSettings(first).followerFetchersAtLeast().getAsInt(),
                "a request read on another thread after the close counts it no more");
        TrackedConnection again = fetching(ids, 11, 50005, "broker-2-fetcher-1");
        seen(ids, "broker-2-fetcher-1", 2);
        assertEquals(2, ids.requestedSettings(first).followerFetchersAtLeast().getAsInt());
        registry.release(again.fd()); // the sampler's release: its descriptor went away unseen
        assertEquals(1, ids.requestedSettings(first).followerFetchersAtLeast().getAsInt(), "released unseen");
    }

    @Test
    void theFollowersTableHoldsAtMostItsBound() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        ConnectionRegistry many = new ConnectionRegistry(BrokerConnectionIds.MOST_FOLLOWERS + 8);
        for (int follower = 0; follower <= BrokerConnectionIds.MOST_FOLLOWERS; follower++) {
            String clientId = "broker-" + follower + "-fetcher-1";
            TrackedConnection connection = many.track(
                            100 + follower,
                            0,
                            ConnectionIdentity.of(
                                            Role.BROKER, LISTENER, new InetSocketAddress("127.0.0.1", 1024 + follower))
                                    .withClientId(clientId))
                    .orElseThrow();
            ids.registered(clientId + "-1", connection);
            ids.clientIdSeen(ids.find(clientId + "-1"), clientId);
            ids.fetchedAsReplica(ids.find(clientId + "-1"), follower);
        }
        assertEquals(BrokerConnectionIds.MOST_FOLLOWERS, ids.followersKept());
    }

    /**
     * A client.id is anyone's to choose: a consumer named like a follower's second fetcher (its Fetch
     * carries replica id -1), or a fetcher whose Fetch names another follower, runs no fetcher of
     * follower 2's. Which of the two a connection shows first does not matter.
     */
    @Test
    void aFetcherCountsOnlyWhenItsFetchCarriesTheFollowerItsClientIdNames() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection first = fetching(ids, 7, 50001, "broker-2-fetcher-0");
        seen(ids, "broker-2-fetcher-0", 2);
        fetching(ids, 8, 50002, "broker-2-fetcher-1");
        seen(ids, "broker-2-fetcher-1", -1);
        fetching(ids, 9, 50003, "broker-2-fetcher-2");
        seen(ids, "broker-2-fetcher-2", 3);
        assertEquals(
                1,
                ids.requestedSettings(first).followerFetchersAtLeast().getAsInt(),
                "named as fetchers 1 and 2, fetching as a consumer and as follower 3");

        fetching(ids, 10, 50004, "broker-2-fetcher-3");
        ids.fetchedAsReplica(ids.find("broker-2-fetcher-3-1"), 2);
        assertEquals(1, ids.requestedSettings(first).followerFetchersAtLeast().getAsInt(), "no client.id yet");
        ids.clientIdSeen(ids.find("broker-2-fetcher-3-1"), "broker-2-fetcher-3");
        assertEquals(4, ids.requestedSettings(first).followerFetchersAtLeast().getAsInt(), "the Fetch came first");
    }

    /**
     * A connection that went away before its client.id or its Fetch spoke is never counted, whatever a
     * request read on another thread says of it after; and a consumer's connection carries no claim at
     * all: a big broker's connections, most of them no fetcher's, each keep one reference for it.
     */
    @Test
    void aConnectionGoneBeforeItsFirstWordNeverCountsAndAConsumerCarriesNoClaim() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection first = fetching(ids, 7, 50001, "broker-2-fetcher-0");
        seen(ids, "broker-2-fetcher-0", 2);
        TrackedConnection early = fetching(ids, 8, 50002, "broker-2-fetcher-1");
        BrokerConnection earlysOwn = ids.find("broker-2-fetcher-1-1");
        ids.closed(early);
        seenOn(ids, earlysOwn, "broker-2-fetcher-1", 2);
        assertEquals(
                1,
                ids.requestedSettings(first).followerFetchersAtLeast().getAsInt(),
                "gone before its first word, counted never");
        // the mark a connection gone unclaimed holds is never written: the words after its close do not reach it
        assertTrue(BrokerConnection.FetcherClaim.RELEASED.released);
        assertEquals(-1, BrokerConnection.FetcherClaim.RELEASED.follower);
        assertEquals(Integer.MIN_VALUE, BrokerConnection.FetcherClaim.RELEASED.fetchedAsReplica);

        fetching(ids, 10, 50004, "a-consumer");
        ids.clientIdSeen(ids.find("a-consumer-1"), "a-consumer");
        assertNull(ids.find("a-consumer-1").fetcher, "a consumer's connection carries no claim");
        assertTrue(ids.find("broker-2-fetcher-0-1").claimsFetcher());
    }

    /** A first Fetch that told no sizes is read once, and its connection's fetch sizes stay unknown, not -1. */
    @Test
    void aFirstFetchThatToldNoSizesIsReadOnceAndLeavesTheSizesUnknown() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection c = connection(7, 50001);
        ids.registered("c-1", c);
        BrokerConnection broker = ids.find("c-1");
        assertFalse(broker.fetchBodyRead());
        broker.fetchSizes = FetchRequestSizes.NONE_TOLD;
        assertTrue(broker.fetchBodyRead(), "read once, whatever it told");
        assertFalse(ids.requestedSettings(c).fetchMaxBytes().isPresent(), "told none: unknown");
        assertFalse(ids.requestedSettings(c).maxPartitionFetchBytes().isPresent(), "told none: unknown");
        broker.fetchSizes = new FetchRequestSizes.Sizes(10_485_760L, 1_048_576L, 4);
        assertEquals(10_485_760L, ids.requestedSettings(c).fetchMaxBytes().getAsLong());
    }

    /** A request named the connection's client, and its Fetch carried {@code replicaId}. */
    private static void seen(BrokerConnectionIds ids, String clientId, int replicaId) {
        seenOn(ids, ids.find(clientId + "-1"), clientId, replicaId);
    }

    /** A request on this connection named {@code clientId}, and its Fetch carried {@code replicaId}. */
    private static void seenOn(BrokerConnectionIds ids, BrokerConnection connection, String clientId, int replicaId) {
        ids.clientIdSeen(connection, clientId);
        ids.fetchedAsReplica(connection, replicaId);
    }

    private TrackedConnection fetching(BrokerConnectionIds ids, int fd, int clientPort, String clientId) {
        TrackedConnection connection = registry.track(
                        fd,
                        0,
                        ConnectionIdentity.of(Role.BROKER, LISTENER, new InetSocketAddress("127.0.0.1", clientPort))
                                .withClientId(clientId))
                .orElseThrow();
        ids.registered(clientId + "-1", connection);
        ids.find(clientId + "-1").fetchSizes = new FetchRequestSizes.Sizes(10_485_760L, 1_048_576L, 4);
        return connection;
    }

    @Test
    void aClosedConnectionLeavesTheTableAndANewOneUnderItsIdIsAnother() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection a = connection(7, 50001);
        ids.registered("a-1", a);
        assertSame(a, ids.find("a-1").tracked);
        ids.closed(a);
        assertNull(ids.find("a-1"), "a closed connection's id names nothing");

        // a later connection registered under an id already known: the earlier one's close does not take it
        TrackedConnection first = connection(9, 50003);
        TrackedConnection second = connection(10, 50004);
        ids.registered("c-1", first);
        ids.registered("c-1", second);
        ids.closed(first);
        assertSame(second, ids.find("c-1").tracked);
        round(ids, second);
        ids.find("c-1").produced(1_000, 1);
        assertEquals(1, round(ids, second).produceTraffic().orElseThrow().requests());
        assertFalse(
                round(ids, first).produceTraffic().isPresent(),
                "the earlier connection is not told the later one's requests");
    }

    /**
     * Each way a registry lets a connection go takes it out of the tables at once, as the registry tells it: no round
     * walks them, and no request reaches a connection that is gone.
     */
    @Test
    void eachWayTheRegistryLetsAConnectionGoTakesItOutOfTheTables() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        ids.follow(registry);
        TrackedConnection closedByKafka = connection(7, 50001);
        TrackedConnection goneUnseen = connection(8, 50002);
        TrackedConnection onAReusedFd = connection(9, 50003);
        TrackedConnection notOurs = connection(10, 50004);
        TrackedConnection stays = connection(11, 50005);
        ids.registered("a-1", closedByKafka);
        ids.registered("b-1", goneUnseen);
        ids.registered("c-1", onAReusedFd);
        ids.registered("d-1", notOurs);
        ids.registered("e-1", stays);

        registry.release(closedByKafka);
        registry.release(goneUnseen.fd());
        TrackedConnection reusing = connection(onAReusedFd.fd(), 50006);
        registry.forget(notOurs);

        assertNull(ids.find("a-1"), "closed as Kafka closed it");
        assertNull(ids.find("b-1"), "released by the sampler, its descriptor gone");
        assertNull(ids.find("c-1"), "replaced on its reused descriptor");
        assertNull(ids.find("d-1"), "forgotten");
        assertSame(stays, ids.find("e-1").tracked, "the one still open stays");
        ids.registered("c-2", reusing);
        assertSame(reusing, ids.find("c-2").tracked, "the socket on the reused descriptor is its own");
    }

    /** An adopted connection let go before a request told its id, or while it was being adopted, is never reached. */
    @Test
    void anAdoptedConnectionLetGoIsNotReachedByALaterRequest() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        ids.follow(registry);
        TrackedConnection adopted = connection(11, 50005);
        ids.adopted(LISTENER, new InetSocketAddress("127.0.0.1", 50005), adopted);
        assertEquals(1, ids.adoptedKept());
        registry.release(adopted.fd());
        assertEquals(0, ids.adoptedKept(), "released before any request: not kept for one");
        assertNull(ids.find("127.0.0.1:9092-127.0.0.1:50005-0-3"), "released before any request");

        TrackedConnection letGoFirst = connection(12, 50006);
        registry.release(letGoFirst.fd()); // the census saw it, then it closed before it was adopted
        ids.adopted(LISTENER, new InetSocketAddress("127.0.0.1", 50006), letGoFirst);
        assertEquals(0, ids.adoptedKept(), "let go before it was adopted: not kept");
        assertNull(ids.find("127.0.0.1:9092-127.0.0.1:50006-0-4"), "let go before it was adopted");

        TrackedConnection registeredLate = connection(13, 50007);
        registry.release(registeredLate);
        ids.registered("f-1", registeredLate);
        assertNull(ids.find("f-1"), "let go before Kafka's id for it was registered");
    }

    @Test
    void anAdoptedConnectionIsReachedOnceARequestToldItsId() {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection adopted = connection(11, 50005);
        ids.adopted(LISTENER, new InetSocketAddress("127.0.0.1", 50005), adopted);
        assertFalse(round(ids, adopted).produceTraffic().isPresent(), "no request yet");
        BrokerConnection found = ids.find("127.0.0.1:9092-127.0.0.1:50005-0-3"); // a 4.x id
        assertSame(adopted, found.tracked);
        round(ids, adopted);
        found.produced(2_048, 1);
        ProduceTraffic traffic = round(ids, adopted).produceTraffic().orElseThrow();
        assertEquals(1, traffic.requests());
        assertEquals(2_048, traffic.bytesPerRequest());
    }
}
