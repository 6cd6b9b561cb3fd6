package io.tcpsight.internal.model;

import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a producer's connection carried in Produce requests over one interval, as the broker saw
 * them: how many, how large, and how many partitions each named. The broker cannot read a
 * client's batch.size or max.in.flight; it reads what they produce. At the producer's own end
 * (the reporter, the Connect plugin) the traffic also carries how much of its buffer.memory its
 * records held when the round began, which the broker cannot see.
 */
public final class ProduceTraffic {
    private final long requests;
    private final long bytes;
    private final double seconds;
    private final Integer partitionsPerRequest;
    private final long bufferHeldBytes;
    private final long bufferTotalBytes;
    /** How long the flow had been producing when the interval began; NaN where not known. */
    private final double flowSecondsAtStart;
    /** The mean size of a batch in the requests whose partitions were read; NaN where none was. */
    private final double meanBatchBytes;

    /**
     * @param requests Produce requests in the interval
     * @param bytes their sizes summed (each request as the broker read it off the socket)
     * @param seconds the interval's length
     * @param partitionsPerRequest partitions the latest request read named; null when none was read
     */
    public ProduceTraffic(long requests, long bytes, double seconds, Integer partitionsPerRequest) {
        this(requests, bytes, seconds, partitionsPerRequest, Double.NaN);
    }

    /**
     * The same, where the broker saw the flow's first request: {@code flowSecondsAtStart} is how long
     * the connection had been producing when the interval began (negative: its first request came
     * within the interval), so a rule can tell an interval that holds the flow's start (TCP's slow
     * start, the send buffer autotuning) from one of its steady state.
     */
    public ProduceTraffic(
            long requests, long bytes, double seconds, Integer partitionsPerRequest, double flowSecondsAtStart) {
        this(requests, bytes, seconds, partitionsPerRequest, -1, -1, flowSecondsAtStart, Double.NaN);
    }

    /**
     * The same, with the mean size of a batch in the requests whose partitions the broker read
     * (their bytes over their partitions; NaN for none): a batch's fill from the same requests'
     * bytes and partitions. The interval's mean request over the latest read request's partitions mixes
     * two requests: a flow of single full batches whose read request held four read as quarter-full.
     */
    public ProduceTraffic(
            long requests,
            long bytes,
            double seconds,
            Integer partitionsPerRequest,
            double flowSecondsAtStart,
            double meanBatchBytes) {
        this(requests, bytes, seconds, partitionsPerRequest, -1, -1, flowSecondsAtStart, meanBatchBytes);
    }

    private ProduceTraffic(
            long requests,
            long bytes,
            double seconds,
            Integer partitionsPerRequest,
            long bufferHeldBytes,
            long bufferTotalBytes,
            double flowSecondsAtStart,
            double meanBatchBytes) {
        if (requests < 0 || bytes < 0 || !(seconds > 0)) {
            throw new IllegalArgumentException("requests " + requests + ", bytes " + bytes + " over " + seconds
                    + " s: counts are never negative" + " and an interval has a length");
        }
        this.requests = requests;
        this.bytes = bytes;
        this.seconds = seconds;
        this.partitionsPerRequest = partitionsPerRequest;
        this.bufferHeldBytes = bufferHeldBytes;
        this.bufferTotalBytes = bufferTotalBytes;
        this.flowSecondsAtStart = flowSecondsAtStart;
        this.meanBatchBytes = meanBatchBytes > 0 ? meanBatchBytes : Double.NaN;
    }

    /**
     * The same traffic with the producer's own buffer gauges ({@code buffer-total-bytes} and
     * {@code buffer-available-bytes}): what its records held of buffer.memory, batches waiting
     * and in flight. Ignored unless the total is positive and the available part within it.
     */
    public ProduceTraffic withBuffer(double totalBytes, double availableBytes) {
        return totalBytes > 0 && availableBytes >= 0 && availableBytes <= totalBytes
                ? new ProduceTraffic(
                        requests,
                        bytes,
                        seconds,
                        partitionsPerRequest,
                        Math.round(totalBytes - availableBytes),
                        Math.round(totalBytes),
                        flowSecondsAtStart,
                        meanBatchBytes)
                : this;
    }

    /** How long the flow had been producing when the interval began; empty where its start was not seen. */
    public OptionalDouble flowSecondsAtStart() {
        return Double.isNaN(flowSecondsAtStart) ? OptionalDouble.empty() : OptionalDouble.of(flowSecondsAtStart);
    }

    public long requests() {
        return requests;
    }

    public double requestsPerSecond() {
        return requests / seconds;
    }

    public double bytesPerSecond() {
        return bytes / seconds;
    }

    /** The mean size of a request in the interval; 0 without one. */
    public long bytesPerRequest() {
        return requests == 0 ? 0 : bytes / requests;
    }

    /** The requests a round trip of this length carried, on average: below one, the client was idle part of it. */
    public double requestsPerRoundTrip(long rttMicros) {
        return requestsPerSecond() * rttMicros / 1e6;
    }

    /** The mean size of a batch where the requests it was read from say it; empty elsewhere. */
    public OptionalDouble meanBatchBytes() {
        return Double.isNaN(meanBatchBytes) ? OptionalDouble.empty() : OptionalDouble.of(meanBatchBytes);
    }

    public OptionalInt partitionsPerRequest() {
        return OptionalValues.orEmpty(partitionsPerRequest);
    }

    /** The bytes the producer's records held of its buffer.memory; empty where only the wire is seen (the broker). */
    public OptionalLong bufferHeldBytes() {
        return bufferTotalBytes > 0 ? OptionalLong.of(bufferHeldBytes) : OptionalLong.empty();
    }

    /** The producer's buffer.memory, as its own gauge reads it; empty where only the wire is seen. */
    public OptionalLong bufferTotalBytes() {
        return bufferTotalBytes > 0 ? OptionalLong.of(bufferTotalBytes) : OptionalLong.empty();
    }
}
