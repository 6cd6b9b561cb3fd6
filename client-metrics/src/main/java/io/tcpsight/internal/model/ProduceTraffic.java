package io.tcpsight.internal.model;

import java.util.OptionalInt;

/**
 * What a producer's connection carried in Produce requests over one interval, as the broker saw
 * them: how many, how large, and how many partitions each named. The broker cannot read a
 * client's batch.size or max.in.flight; it reads what they produce.
 */
public final class ProduceTraffic {
    private final long requests;
    private final long bytes;
    private final double seconds;
    private final Integer partitionsPerRequest;

    /**
     * @param requests Produce requests in the interval
     * @param bytes their sizes summed (each request as the broker read it off the socket)
     * @param seconds the interval's length
     * @param partitionsPerRequest partitions the latest request read named; null when none was read
     */
    public ProduceTraffic(long requests, long bytes, double seconds, Integer partitionsPerRequest) {
        if (requests < 0 || bytes < 0 || !(seconds > 0)) {
            throw new IllegalArgumentException("requests " + requests + ", bytes " + bytes + " over " + seconds
                    + " s: counts are never negative" + " and an interval has a length");
        }
        this.requests = requests;
        this.bytes = bytes;
        this.seconds = seconds;
        this.partitionsPerRequest = partitionsPerRequest;
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

    public OptionalInt partitionsPerRequest() {
        return OptionalValues.orEmpty(partitionsPerRequest);
    }
}
