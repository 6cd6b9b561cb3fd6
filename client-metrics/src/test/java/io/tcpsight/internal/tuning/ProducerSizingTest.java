package io.tcpsight.internal.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProducerSizingTest {
    private static final double MBIT = 1e6 / 8;

    /** The arithmetic by hand: in flight = 2 x RTT x rate; batch = in flight / (5 requests x partitions), a power of two. */
    @ParameterizedTest(name = "{0} ms, {1} Mbit/s, {2} partition(s): batch {3}, request {4}, memory {5}")
    @CsvSource({
        // 2.5 MB BDP; 5 MB / 20 = 250,000 -> 262144; four of them are 1 MiB, Kafka's max.request.size
        "100, 200, 4, 262144, 1048576, 33554432",
        // one partition alone: 1,000,000 -> 1 MiB, the cap below the broker's message.max.bytes
        "100, 200, 1, 1048576, 1048576, 33554432",
        // a short path keeps Kafka's defaults: 50,000 / 20 = 2,500 is below 16384
        "1, 200, 4, 16384, 1048576, 33554432",
        // 16 partitions: 62,500 -> 65536
        "100, 200, 16, 65536, 1048576, 33554432",
        // 1 Gbit/s: 25 MB in flight, 625,000 -> 1 MiB per batch; 8 of them need 8 MiB requests and 2 x 25 MB of memory
        "100, 1000, 8, 1048576, 8388608, 67108864",
        // 200 ms at 1 Gbit/s: 50 MB in flight needs 128 MiB of buffer.memory
        "200, 1000, 1, 1048576, 1048576, 134217728",
    })
    void sizesThePipelineForTwoBdps(
            long rttMillis, double mbit, int partitions, long batch, long maxRequest, long bufferMemory) {
        ProducerSizing sizing = ProducerSizing.forPath(rttMillis * 1000, mbit * MBIT, partitions);
        assertEquals(batch, sizing.batchBytes(), "batch.size");
        assertEquals(maxRequest, sizing.maxRequestBytes(), "max.request.size");
        assertEquals(bufferMemory, sizing.bufferMemoryBytes(), "buffer.memory");
        assertEquals(maxRequest > 1_048_576, sizing.raisesMaxRequest());
        assertEquals(bufferMemory > 33_554_432, sizing.raisesBufferMemory());
        assertTrue(
                sizing.bytesPerRoundTrip(partitions) >= Math.min(sizing.inFlightBytes(), 5L * 1_048_576 * partitions),
                "five requests carry the two BDPs, unless the batch cap binds");
    }

    @Test
    void theSizingAsClientSettingsInTheOrderAReportShowsThem() {
        assertEquals(
                Map.of(
                        "batch.size", "262144",
                        "linger.ms", "20",
                        "max.request.size", "1048576",
                        "buffer.memory", "33554432",
                        "send.buffer.bytes", "-1"),
                ProducerSizing.forPath(100_000, 200 * MBIT, 4).clientSettings());
        assertEquals(
                ProducerSizing.KEYS,
                List.copyOf(ProducerSizing.forPath(100_000, 200 * MBIT, 4)
                        .clientSettings()
                        .keySet()));
    }

    @Test
    void twoBdpsInFlight() {
        assertEquals(5_000_000, ProducerSizing.forPath(100_000, 200 * MBIT, 4).inFlightBytes());
        assertFalse(ProducerSizing.forPath(100_000, 200 * MBIT, 4).raisesMaxRequest());
    }

    @Test
    void badInputNamesEveryValue() {
        IllegalArgumentException noPartition =
                assertThrows(IllegalArgumentException.class, () -> ProducerSizing.forPath(100_000, 1e6, 0));
        assertTrue(noPartition.getMessage().contains("partitions 0"), noPartition.getMessage());
        IllegalArgumentException noRate =
                assertThrows(IllegalArgumentException.class, () -> ProducerSizing.forPath(100_000, 0, 1));
        assertTrue(noRate.getMessage().contains("rate 0.0"), noRate.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ProducerSizing.forPath(-1, 1e6, 1));
    }

    @Test
    void powersOfTwo() {
        assertEquals(1, ProducerSizing.powerOfTwoAtLeast(0));
        assertEquals(16_384, ProducerSizing.powerOfTwoAtLeast(16_384));
        assertEquals(32_768, ProducerSizing.powerOfTwoAtLeast(16_385));
    }
}
