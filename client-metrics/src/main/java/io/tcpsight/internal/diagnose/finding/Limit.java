package io.tcpsight.internal.diagnose.finding;

/**
 * One ceiling on a connection's flow: what it lets the flow reach now, and what it lets the flow
 * reach once the remedy of the finding that names it is applied. A finding carries the limit it
 * names ({@link Finding#limit()}); a ceiling no finding names (a fetch size that reaches 80% of
 * the target but not all of it) stands as it is. The connection rules' {@code ExpectedRate} takes the least of them.
 */
public final class Limit {
    /** After a remedy that leaves no ceiling this end can compute (the window is then the buffers', judged by their own rules). */
    public static final double UNBOUNDED = Double.POSITIVE_INFINITY;

    /** The window the receiving end advertises: its buffer, clamp, scale and host max. */
    public static final String RECEIVE_WINDOW = "receive window";
    /** The sending end's buffer, which holds every unacknowledged byte. */
    public static final String SEND_BUFFER = "send buffer";
    /** A fetcher's bytes per fetch response, one response a round trip. */
    public static final String FETCH_SIZE = "fetch size";
    /** The records one poll takes of a fetch response, where the consumer's task spaces the fetches. */
    public static final String POLL = "records a poll takes";
    /** A producer's requests in flight times what each carries. */
    public static final String PRODUCE_PIPELINE = "produce pipeline";
    /** What a loss-based congestion control sustains at the path's loss. */
    public static final String LOSS = "congestion control under loss";

    private final String name;
    private final double nowBytesPerSecond;
    private final double afterBytesPerSecond;

    /**
     * @param name what limits, in words ("receive window", "fetch size"): the doctor lists it so
     * @param nowBytesPerSecond the most the flow moves with the settings in effect
     * @param afterBytesPerSecond the most it moves once this limit's remedy is applied, {@link #UNBOUNDED} when nothing
     *     this end knows holds it then
     */
    public Limit(String name, double nowBytesPerSecond, double afterBytesPerSecond) {
        if (!(nowBytesPerSecond >= 0) || !(afterBytesPerSecond >= 0)) {
            // a NaN or a negative rate would order anywhere and decide nothing
            throw new IllegalArgumentException(
                    "limit " + name + " needs rates >= 0, got " + nowBytesPerSecond + " and " + afterBytesPerSecond);
        }
        this.name = name;
        this.nowBytesPerSecond = nowBytesPerSecond;
        this.afterBytesPerSecond = afterBytesPerSecond;
    }

    /** A ceiling no remedy of the round lifts: the same after as now. */
    public static Limit standing(String name, double bytesPerSecond) {
        return new Limit(name, bytesPerSecond, bytesPerSecond);
    }

    /** A window's ceiling once a remedy lets the buffer autotune up to a host max of {@code hostMaxBytes}. */
    public static double autotunedWindowRate(long hostMaxBytes, long rttMicros) {
        if (rttMicros <= 0) {
            return UNBOUNDED;
        }
        // the kernel gives about half of an autotuned buffer to the window (BdpSettings' sizing of the max)
        return Rates.ceilingBytesPerSecond(hostMaxBytes / 2, rttMicros);
    }

    public String name() {
        return name;
    }

    public double nowBytesPerSecond() {
        return nowBytesPerSecond;
    }

    public double afterBytesPerSecond() {
        return afterBytesPerSecond;
    }

    @Override
    public String toString() {
        return name + " " + Rates.mbit(nowBytesPerSecond) + " -> " + Rates.mbit(afterBytesPerSecond) + " Mbit/s";
    }
}
