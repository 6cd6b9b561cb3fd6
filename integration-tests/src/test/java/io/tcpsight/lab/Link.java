package io.tcpsight.lab;

import java.time.Duration;

/** The delay line's parameters: what a path between two data centres looks like to TCP. */
public final class Link {
    private final Duration oneWayDelay;
    private final double rateMbit;
    private final double lossPercent;
    private final int queuePackets;

    private Link(Duration oneWayDelay, double rateMbit, double lossPercent, int queuePackets) {
        this.oneWayDelay = oneWayDelay;
        this.rateMbit = rateMbit;
        this.lossPercent = lossPercent;
        this.queuePackets = queuePackets;
    }

    /** A link with this round-trip time (half of it each way), no rate limit and no loss. */
    public static Link rtt(Duration roundTrip) {
        return new Link(roundTrip.dividedBy(2), 0, 0, 1000);
    }

    public static Link oneWay(Duration delay) {
        return new Link(delay, 0, 0, 1000);
    }

    public Link rateMbit(double mbit) {
        return new Link(oneWayDelay, mbit, lossPercent, queuePackets);
    }

    /** Random loss per direction, in percent. */
    public Link lossPercent(double percent) {
        return new Link(oneWayDelay, rateMbit, percent, queuePackets);
    }

    public Link queuePackets(int packets) {
        return new Link(oneWayDelay, rateMbit, lossPercent, packets);
    }

    public Duration oneWayDelay() {
        return oneWayDelay;
    }

    public Duration roundTrip() {
        return oneWayDelay.multipliedBy(2);
    }

    public double rateMbit() {
        return rateMbit;
    }

    public double lossPercent() {
        return lossPercent;
    }

    public int queuePackets() {
        return queuePackets;
    }

    @Override
    public String toString() {
        return "rtt " + roundTrip().toMillis() + " ms, " + (rateMbit > 0 ? rateMbit + " Mbit/s" : "unlimited")
                + ", loss " + lossPercent + "%, queue " + queuePackets + " packets";
    }
}
