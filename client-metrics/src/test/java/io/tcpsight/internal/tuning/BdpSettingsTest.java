package io.tcpsight.internal.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BdpSettingsTest {
    private static final double MBIT = 1e6 / 8;

    static BdpSettings.Recommendation size(double rttMillis, double mbit, int partitions, Long rmem) {
        return BdpSettings.recommend(
                new BdpSettings.Input(Math.round(rttMillis * 1000), mbit * MBIT, partitions, rmem, null, 1024));
    }

    @Test
    void hundredMillisecondsAt200MbitPerSecond() {
        BdpSettings.Recommendation r = size(100, 200, 4, 4_194_304L);
        assertEquals(2_500_000, r.bdpBytes());
        assertEquals(-1, r.receiveBufferBytes());
        assertEquals(-1, r.producerSendBufferBytes());
        assertEquals(52_428_800, r.fetchMaxBytes(), "Kafka's default already carries 9 x BDP");
        assertEquals(6 * BdpSettings.MIB, r.maxPartitionFetchBytes(), "22.5 MB over 4 partitions, rounded up to MiB");
        assertEquals(51_200, r.maxPollRecords(), "a broker's whole 50 MiB response of 1 KiB records in one poll");
        assertEquals(10 * BdpSettings.MIB, r.requiredTcpRmemMax());
        assertTrue(r.tcpRmemMaxTooLow(), "4 MiB cannot hold a 5 MB window");
        assertTrue(r.reasoning().get(0).contains("2500000 bytes"), r.reasoning().get(0));
        assertFalse(size(100, 200, 4, null).tcpRmemMaxTooLow(), "unknown is not too low");
    }

    @Test
    void onePollTakesEveryBrokersWholeResponse() {
        BdpSettings.Recommendation r =
                BdpSettings.recommend(new BdpSettings.Input(100_000, 200 * MBIT, 1, null, null, 4000));
        assertEquals(22 * BdpSettings.MIB, r.maxPartitionFetchBytes());
        assertEquals(13_108, r.maxPollRecords(), "a 50 MiB response of 4000-byte records (13107.2), rounded up");
        assertTrue(
                r.reasoning().stream().anyMatch(reason -> reason.startsWith("max.poll.records=13108:")),
                r.reasoning().toString());
        BdpSettings.Recommendation threeBrokers =
                BdpSettings.recommend(new BdpSettings.Input(100_000, 200 * MBIT, 1, null, null, 4000).fetchingFrom(3));
        assertEquals(39_322, threeBrokers.maxPollRecords(), "three 50 MiB responses (39321.6), rounded up");
        assertEquals(r.fetchMaxBytes(), threeBrokers.fetchMaxBytes(), "each fetch is sized for the path alone");
        assertEquals(r.maxPartitionFetchBytes(), threeBrokers.maxPartitionFetchBytes());
        assertTrue(
                threeBrokers.reasoning().stream().anyMatch(reason -> reason.contains("each of 3 broker(s)")),
                threeBrokers.reasoning().toString());
        BdpSettings.Recommendation shortPath =
                BdpSettings.recommend(new BdpSettings.Input(1_000, 200 * MBIT, 1, null, null, 1_000_000));
        assertEquals(BdpSettings.MAX_POLL_RECORDS_DEFAULT, shortPath.maxPollRecords(), "never below Kafka's default");
        BdpSettings.Recommendation lan =
                BdpSettings.recommend(new BdpSettings.Input(500, 1000 * MBIT, 1, null, null, 100));
        assertEquals(BdpSettings.MAX_PARTITION_FETCH_BYTES_DEFAULT, lan.maxPartitionFetchBytes());
        assertEquals(
                BdpSettings.MAX_POLL_RECORDS_DEFAULT,
                lan.maxPollRecords(),
                "where Kafka's fetch sizes suffice, its 500 stays");
        BdpSettings.Recommendation tiny =
                BdpSettings.recommend(new BdpSettings.Input(300_000, 10_000 * MBIT, 1, null, null, 1));
        assertEquals(
                BdpSettings.BROKER_FETCH_MAX_BYTES_DEFAULT,
                tiny.maxPollRecords(),
                "one-byte records: as many as the response's bytes");
    }

    @Test
    void veryLongFatPathsAreCappedByTheBroker() {
        BdpSettings.Recommendation r = size(300, 10_000, 1, null);
        assertEquals(BdpSettings.BROKER_FETCH_MAX_BYTES_DEFAULT, r.fetchMaxBytes());
        assertEquals(
                BdpSettings.BROKER_FETCH_MAX_BYTES_DEFAULT, r.maxPartitionFetchBytes(), "never above fetch.max.bytes");
    }

    @Test
    void badInputIsRejectedWithTheValues() {
        IllegalArgumentException failure = assertThrows(
                IllegalArgumentException.class, () -> new BdpSettings.Input(100_000, 0, 1, null, null, 1024));
        assertTrue(failure.getMessage().contains("rate 0.0"), failure.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new BdpSettings.Input(-1, 1, 1, null, null, 1024));
        assertThrows(IllegalArgumentException.class, () -> new BdpSettings.Input(100_000, 1, 0, null, null, 1024));
        IllegalArgumentException noSize =
                assertThrows(IllegalArgumentException.class, () -> new BdpSettings.Input(100_000, 1, 1, null, null, 0));
        assertTrue(noSize.getMessage().contains("record size 0 bytes"), noSize.getMessage());
        IllegalArgumentException noBroker = assertThrows(
                IllegalArgumentException.class,
                () -> new BdpSettings.Input(100_000, 1, 1, null, null, 1024).fetchingFrom(0));
        assertTrue(noBroker.getMessage().contains("got 0"), noBroker.getMessage());
    }

    /** Property: every output is monotone in RTT and rate, and within Kafka's defaults and the broker's cap. */
    @Test
    void recommendationsAreMonotoneInRttAndRateAndWithinBounds() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            double rtt = random.nextDouble() * 500;
            double rate = 0.1 + random.nextDouble() * 20_000;
            int partitions = 1 + random.nextInt(200);
            BdpSettings.Recommendation base = size(rtt, rate, partitions, null);
            BdpSettings.Recommendation longer = size(rtt * (1 + random.nextDouble()), rate, partitions, null);
            BdpSettings.Recommendation faster = size(rtt, rate * (1 + random.nextDouble()), partitions, null);
            for (BdpSettings.Recommendation more : new BdpSettings.Recommendation[] {longer, faster}) {
                String context = "rtt " + rtt + " rate " + rate + " partitions " + partitions;
                assertTrue(more.bdpBytes() >= base.bdpBytes(), context);
                assertTrue(more.fetchMaxBytes() >= base.fetchMaxBytes(), context);
                assertTrue(more.maxPartitionFetchBytes() >= base.maxPartitionFetchBytes(), context);
                assertTrue(more.maxPollRecords() >= base.maxPollRecords(), context);
                assertTrue(more.requiredTcpRmemMax() >= base.requiredTcpRmemMax(), context);
            }
            assertTrue(base.fetchMaxBytes() >= BdpSettings.FETCH_MAX_BYTES_DEFAULT);
            assertTrue(base.fetchMaxBytes() <= BdpSettings.BROKER_FETCH_MAX_BYTES_DEFAULT);
            assertTrue(base.maxPartitionFetchBytes() >= BdpSettings.MAX_PARTITION_FETCH_BYTES_DEFAULT);
            assertTrue(base.maxPartitionFetchBytes() <= base.fetchMaxBytes());
            assertTrue(base.maxPollRecords() >= BdpSettings.MAX_POLL_RECORDS_DEFAULT);
            if (base.maxPartitionFetchBytes() > BdpSettings.MAX_PARTITION_FETCH_BYTES_DEFAULT) {
                assertTrue(
                        (long) base.maxPollRecords() * 1024 >= base.fetchMaxBytes(),
                        "a poll drains a broker's whole response");
            } else {
                assertEquals(BdpSettings.MAX_POLL_RECORDS_DEFAULT, base.maxPollRecords());
            }
            assertTrue(base.requiredTcpRmemMax() >= 2 * base.bdpBytes()
                    && base.requiredTcpRmemMax() % BdpSettings.MIB == 0);
            // Unless the broker cap binds, one fetch carries at least a BDP: the consumer is not fetch-bound.
            if (base.fetchMaxBytes() < BdpSettings.BROKER_FETCH_MAX_BYTES_DEFAULT) {
                assertTrue(
                        Math.min(base.fetchMaxBytes(), base.maxPartitionFetchBytes() * partitions) >= base.bdpBytes(),
                        "rtt " + rtt + " rate " + rate + " partitions " + partitions);
            }
        }
    }
}
