package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.tcpsight.internal.tuning.ProducerSizing;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class WriteProbeTest {
    /** 100 ms at 200 Mbit/s: twice the BDP in flight, 5 MB, and a buffer of twice that, Kafka's 32 MiB at least. */
    private static final ProducerSizing AT_200_MBIT = ProducerSizing.forPath(100_000, 25_000_000, 1);

    @Test
    void aBufferLargerThanTheSizingsIsHeldToItForTheProbeAndTheLabelSaysSo() {
        ThroughputProbe.Variant variant = WriteProbe.asConfigured(AT_200_MBIT, client("1073741824"));
        assertEquals(
                WriteProbe.AS_CONFIGURED.label() + ", buffer.memory 32 MiB for the probe, not 1024 MiB",
                variant.label());
        assertEquals(Map.of("buffer.memory", "33554432"), variant.overrides());
        Properties producer = WriteProbe.producerConfig(client("1073741824"), variant);
        assertEquals("33554432", producer.getProperty("buffer.memory"));
        assertEquals(
                variant, WriteProbe.variants(AT_200_MBIT, client("1073741824")).get(0));
    }

    @Test
    void theHeldBufferIsTheSizingsForAFasterTarget() {
        // 100 ms at 10 Gbit/s: 250 MB in flight, a buffer of 512 MiB
        ProducerSizing fast = ProducerSizing.forPath(100_000, 1_250_000_000, 1);
        assertEquals(536_870_912, fast.bufferMemoryBytes());
        ThroughputProbe.Variant variant = WriteProbe.asConfigured(fast, client("1073741824"));
        assertEquals(Map.of("buffer.memory", "536870912"), variant.overrides());
    }

    @Test
    void aBufferAtOrBelowTheSizingsIsTheClientsOwn() {
        assertSame(WriteProbe.AS_CONFIGURED, WriteProbe.asConfigured(AT_200_MBIT, new Properties()));
        assertSame(WriteProbe.AS_CONFIGURED, WriteProbe.asConfigured(AT_200_MBIT, client("33554432")));
        assertSame(WriteProbe.AS_CONFIGURED, WriteProbe.asConfigured(AT_200_MBIT, client("16777216")));
        assertEquals(
                "16777216",
                WriteProbe.producerConfig(client("16777216"), WriteProbe.asConfigured(AT_200_MBIT, client("16777216")))
                        .getProperty("buffer.memory"));
    }

    @Test
    void aBufferThatIsNoWholeMibIsSaidInBytes() {
        // librdkafka's queue.buffering.max.kbytes=32769: a KiB over the sizing's 32 MiB
        ThroughputProbe.Variant variant = WriteProbe.asConfigured(AT_200_MBIT, client("33555456"));
        assertEquals(
                WriteProbe.AS_CONFIGURED.label() + ", buffer.memory 32 MiB for the probe, not 33555456 bytes",
                variant.label());
    }

    @Test
    void aBufferThatIsNoNumberIsLeftForTheProducerToRefuse() {
        assertSame(WriteProbe.AS_CONFIGURED, WriteProbe.asConfigured(AT_200_MBIT, client("lots")));
    }

    private static Properties client(String bufferMemory) {
        Properties client = new Properties();
        client.setProperty("buffer.memory", bufferMemory);
        return client;
    }
}
