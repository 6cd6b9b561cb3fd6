package io.tcpsight.internal.tuning;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Client settings from the bandwidth-delay product: a consumer gets one fetch response per
 * round trip, so each fetch must carry at least a BDP, and the receive window must hold one.
 * A plain function: RTT, target rate, partitions per broker and the limits of host and
 * broker in; settings and the reasoning out.
 */
public final class BdpSettings {
    public static final long MIB = 1 << 20;
    /** Kafka's defaults, which the recommendation never goes below. */
    public static final long FETCH_MAX_BYTES_DEFAULT = 52_428_800;

    public static final long MAX_PARTITION_FETCH_BYTES_DEFAULT = 1_048_576;
    public static final int MAX_POLL_RECORDS_DEFAULT = 500;
    /** The broker's own cap on a fetch response (its fetch.max.bytes default, 55 MiB). */
    public static final long BROKER_FETCH_MAX_BYTES_DEFAULT = 57_671_680;
    /** Since Linux 6.6 about half of the receive buffer becomes window (scaling_ratio). */
    static final double WINDOW_SHARE_OF_BUFFER = 0.5;
    /** Window room: two BDPs, so the window never binds while the sender ramps. */
    static final double HEADROOM = 2.0;
    /**
     * BDPs one fetch response carries. A consumer sends no fetch while one is in flight or being
     * processed, so a response of n BDPs keeps its link busy at most n/(n+1) of the time: 9 aims
     * at 90%. Measured in the lab: 2 BDPs gave 65% of a 100 ms, 200 Mbit/s link to 4 tasks.
     */
    static final double FETCH_BDPS = 9.0;

    private BdpSettings() {}

    /** What goes in. Limits that are unknown are null. */
    public static final class Input {
        final long rttMicros;
        final double targetBytesPerSecond;
        final int partitionsPerBroker;
        final Long tcpRmemMax;
        final long brokerFetchMaxBytes;
        final long recordBytes;
        /** The brokers the consumer fetches from at once: it keeps one fetch in flight to each. */
        private int brokers = 1;

        /** @param recordBytes the record size assumed for max.poll.records (tcpsight.fetch.record.bytes) */
        public Input(
                long rttMicros,
                double targetBytesPerSecond,
                int partitionsPerBroker,
                Long tcpRmemMax,
                Long brokerFetchMaxBytes,
                long recordBytes) {
            if (rttMicros < 0 || !(targetBytesPerSecond > 0) || partitionsPerBroker < 1 || recordBytes < 1) {
                throw new IllegalArgumentException(
                        "sizing needs rtt >= 0 µs, a target rate > 0, at least one partition and a record size"
                                + " >= 1 byte, got rtt " + rttMicros + " µs, rate " + targetBytesPerSecond
                                + " B/s, partitions "
                                + partitionsPerBroker + ", record size " + recordBytes + " bytes");
            }
            this.recordBytes = recordBytes;
            this.rttMicros = rttMicros;
            this.targetBytesPerSecond = targetBytesPerSecond;
            this.partitionsPerBroker = partitionsPerBroker;
            this.tcpRmemMax = tcpRmemMax;
            this.brokerFetchMaxBytes =
                    brokerFetchMaxBytes == null ? BROKER_FETCH_MAX_BYTES_DEFAULT : brokerFetchMaxBytes;
        }

        /**
         * The consumer fetches from this many brokers (the cluster's, or the bootstrap list's
         * count): one poll must take a whole response from each, so max.poll.records scales with it.
         */
        public Input fetchingFrom(int brokerCount) {
            if (brokerCount < 1) {
                throw new IllegalArgumentException(
                        "sizing needs at least one broker to fetch from, got " + brokerCount);
            }
            this.brokers = brokerCount;
            return this;
        }
    }

    /** What comes out: values for the client, and the host limit they need. */
    public static final class Recommendation {
        private final long bdpBytes;
        private final int receiveBufferBytes;
        private final long fetchMaxBytes;
        private final long maxPartitionFetchBytes;
        private final int maxPollRecords;
        private final int producerSendBufferBytes;
        private final ProducerSizing producer;
        private final long requiredTcpRmemMax;
        private final boolean tcpRmemMaxTooLow;
        private final List<String> reasoning;

        Recommendation(
                long bdpBytes,
                int receiveBufferBytes,
                long fetchMaxBytes,
                long maxPartitionFetchBytes,
                int maxPollRecords,
                int producerSendBufferBytes,
                ProducerSizing producer,
                long requiredTcpRmemMax,
                boolean tcpRmemMaxTooLow,
                List<String> reasoning) {
            this.bdpBytes = bdpBytes;
            this.receiveBufferBytes = receiveBufferBytes;
            this.fetchMaxBytes = fetchMaxBytes;
            this.maxPartitionFetchBytes = maxPartitionFetchBytes;
            this.maxPollRecords = maxPollRecords;
            this.producerSendBufferBytes = producerSendBufferBytes;
            this.producer = producer;
            this.requiredTcpRmemMax = requiredTcpRmemMax;
            this.tcpRmemMaxTooLow = tcpRmemMaxTooLow;
            this.reasoning = Collections.unmodifiableList(reasoning);
        }

        public long bdpBytes() {
            return bdpBytes;
        }

        /** receive.buffer.bytes: -1, kernel autotuning, which grows the window to what the path needs. */
        public int receiveBufferBytes() {
            return receiveBufferBytes;
        }

        public long fetchMaxBytes() {
            return fetchMaxBytes;
        }

        public long maxPartitionFetchBytes() {
            return maxPartitionFetchBytes;
        }

        /**
         * max.poll.records: every broker's whole fetch response in one poll where the fetch sizes
         * are raised for the path (Kafka's 500 otherwise). The consumer asks a broker again only
         * for partitions of which nothing is buffered, and sends those fetches before it hands
         * the records over; a poll that drains all responses lets every broker's next fetch, for
         * all its partitions, travel while the records are processed. A poll that drains less
         * splits a broker's partitions over fetches that each wait a round trip.
         */
        public int maxPollRecords() {
            return maxPollRecords;
        }

        /** Producer send.buffer.bytes: -1 for the same reason. */
        public int producerSendBufferBytes() {
            return producerSendBufferBytes;
        }

        /**
         * A producer's batch.size, max.request.size and buffer.memory for the path, with as many
         * partitions per request as the consumer has per broker.
         */
        public ProducerSizing producer() {
            return producer;
        }

        /** The third value of net.ipv4.tcp_rmem that autotuning needs to reach the target. */
        public long requiredTcpRmemMax() {
            return requiredTcpRmemMax;
        }

        /** Whether this host's tcp_rmem max is known to be below {@link #requiredTcpRmemMax()}. */
        public boolean tcpRmemMaxTooLow() {
            return tcpRmemMaxTooLow;
        }

        public List<String> reasoning() {
            return reasoning;
        }
    }

    public static Recommendation recommend(Input input) {
        List<String> why = new ArrayList<>();
        long bdp = Bdp.bytes(input.rttMicros, input.targetBytesPerSecond);
        why.add(String.format(
                "BDP = %.1f ms x %.1f Mbit/s = %d bytes",
                input.rttMicros / 1000.0, input.targetBytesPerSecond * 8 / 1e6, bdp));

        long requiredRmem = kernelBufferMax(input.rttMicros, input.targetBytesPerSecond);
        boolean rmemTooLow = input.tcpRmemMax != null && input.tcpRmemMax < requiredRmem;
        why.add(
                "receive.buffer.bytes=-1: autotuning grows the window to the path; a fixed buffer also fixes the window scale at connect time");
        why.add("net.ipv4.tcp_rmem max >= " + requiredRmem
                + " (two BDPs of window at a window share of about half the buffer)"
                + (input.tcpRmemMax == null
                        ? ""
                        : rmemTooLow
                                ? "; this host has " + input.tcpRmemMax + ", too low"
                                : "; this host has " + input.tcpRmemMax + ", enough"));

        long cap = Math.max(FETCH_MAX_BYTES_DEFAULT, input.brokerFetchMaxBytes);
        long fetchMax =
                Math.min(cap, Math.max(FETCH_MAX_BYTES_DEFAULT, roundUpToMib((long) Math.ceil(bdp * FETCH_BDPS))));
        why.add("fetch.max.bytes=" + fetchMax
                + ": the consumer waits for each response, so one must carry nine BDPs to keep the"
                + " link busy 90% of the time (not above the broker's "
                + input.brokerFetchMaxBytes + ")");
        long perPartition = (long) Math.ceil(bdp * FETCH_BDPS / input.partitionsPerBroker);
        long maxPartition = Math.min(fetchMax, Math.max(MAX_PARTITION_FETCH_BYTES_DEFAULT, roundUpToMib(perPartition)));
        why.add("max.partition.fetch.bytes=" + maxPartition + ": " + input.partitionsPerBroker
                + " partition(s) per broker together fill the response");
        int maxPollRecords = MAX_POLL_RECORDS_DEFAULT;
        if (maxPartition > MAX_PARTITION_FETCH_BYTES_DEFAULT) {
            long perPoll = (fetchMax * input.brokers + input.recordBytes - 1) / input.recordBytes;
            maxPollRecords = (int) Math.min(Integer.MAX_VALUE, Math.max(MAX_POLL_RECORDS_DEFAULT, perPoll));
            why.add("max.poll.records=" + maxPollRecords + ": one poll takes a whole response from each of "
                    + input.brokers + " broker(s) (" + fetchMax + " bytes each of " + input.recordBytes
                    + "-byte records, tcpsight.fetch.record.bytes), so every broker's next fetch travels while the"
                    + " records are processed; the task must process one poll within max.poll.interval.ms, and"
                    + " the heap holds about twice that many bytes per consumer");
        } else {
            why.add("max.poll.records=" + maxPollRecords
                    + " (Kafka's default): on this path Kafka's fetch sizes suffice, and a fetch"
                    + " that waits for the records to be processed waits briefly");
        }
        why.add("producer send.buffer.bytes=-1: the producer's window of unacknowledged bytes must hold a BDP too");
        ProducerSizing producer =
                ProducerSizing.forPath(input.rttMicros, input.targetBytesPerSecond, input.partitionsPerBroker);
        why.add("producer batch.size=" + producer.batchBytes() + ", linger.ms=" + ProducerSizing.LINGER_MS
                + ", max.request.size=" + producer.maxRequestBytes() + ", buffer.memory=" + producer.bufferMemoryBytes()
                + ": a connection carries at most " + ProducerSizing.IN_FLIGHT_WITH_IDEMPOTENCE
                + " requests per round trip (idempotence), so " + input.partitionsPerBroker
                + " partition(s) of batches in each must hold two BDPs (" + producer.inFlightBytes() + " bytes)");
        return new Recommendation(
                bdp, -1, fetchMax, maxPartition, maxPollRecords, -1, producer, requiredRmem, rmemTooLow, why);
    }

    /**
     * The tcp_rmem / tcp_wmem max that lets one socket's buffer autotune to the rate over the RTT:
     * two BDPs of window (headroom while the sender ramps) at a window share of half the buffer.
     */
    public static long kernelBufferMax(long rttMicros, double bytesPerSecond) {
        return roundUpToMib((long) Math.ceil(Bdp.bytes(rttMicros, bytesPerSecond) * HEADROOM / WINDOW_SHARE_OF_BUFFER));
    }

    /** Rounds up to whole MiB, at least one. */
    private static long roundUpToMib(long bytes) {
        return Math.max(MIB, (bytes + MIB - 1) / MIB * MIB);
    }
}
