package io.tcpsight.internal.export;

import java.time.Duration;

/**
 * The fixed bucket layouts of tcpsight's histograms, one per domain. Fixed, so that every process
 * exports the same {@code le} bounds and Prometheus can sum histograms across brokers and workers;
 * chosen for the domain, so that {@code histogram_quantile} lands within one bucket of the
 * kernel's value from a loopback RTT to an intercontinental one. Each layout has at most 27
 * bounds, plus the +Inf bucket Prometheus adds. Shares of busy time (0 to 1) have no layout: they
 * are exported as times, which sum across connections where ratios do not.
 */
public enum HistogramBuckets {
    /** 50 µs to 10 s, about ×1.6 a step (1, 1.5, 2.5, 4, 6 per decade): a loopback RTT to a broken path. */
    RTT_SECONDS(
            50e-6, 100e-6, 150e-6, 250e-6, 400e-6, 600e-6, 1e-3, 1.5e-3, 2.5e-3, 4e-3, 6e-3, 10e-3, 15e-3, 25e-3, 40e-3,
            60e-3, 100e-3, 150e-3, 250e-3, 400e-3, 600e-3, 1, 1.5, 2.5, 4, 6, 10),
    /** 1 KiB to 256 MiB in powers of two: socket buffers and windows are powers of two or just below. */
    BYTES(powersOfTwo(10, 28)),
    /** 10 kB/s to 10 GB/s, 1-2-5 per decade. */
    BYTES_PER_SECOND(oneTwoFive(1e4, 1e10));

    private final double[] bounds;

    HistogramBuckets(double... bounds) {
        this.bounds = bounds;
    }

    /** The bounds as durations, for a Timer: it buckets whole nanoseconds, so sub-second bounds are exact. */
    public Duration[] durations() {
        Duration[] durations = new Duration[bounds.length];
        for (int i = 0; i < bounds.length; i++) {
            durations[i] = Duration.ofNanos(Math.round(bounds[i] * 1e9));
        }
        return durations;
    }

    /** The upper bounds, ascending; a copy. */
    public double[] bounds() {
        return bounds.clone();
    }

    private static double[] powersOfTwo(int fromExponent, int toExponent) {
        double[] values = new double[toExponent - fromExponent + 1];
        for (int i = 0; i < values.length; i++) {
            values[i] = Math.pow(2, fromExponent + i);
        }
        return values;
    }

    private static double[] oneTwoFive(double from, double to) {
        int decades = (int) Math.round(Math.log10(to / from));
        double[] values = new double[decades * 3 + 1];
        for (int decade = 0; decade < decades; decade++) {
            double base = Math.rint(from * Math.pow(10, decade));
            values[decade * 3] = base;
            values[decade * 3 + 1] = 2 * base;
            values[decade * 3 + 2] = 5 * base;
        }
        values[values.length - 1] = to;
        return values;
    }
}
