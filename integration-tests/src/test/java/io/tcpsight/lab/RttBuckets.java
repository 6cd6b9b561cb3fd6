package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.export.HistogramBuckets;

/** "Within one bucket" of tcpsight's RTT histogram layout, for quantiles Prometheus computes. */
public final class RttBuckets {
    private RttBuckets() {}

    /** The quantile's bucket and the kernel value's bucket are the same or neighbours. */
    public static void assertWithinOneBucket(double quantileSeconds, double kernelSeconds) {
        int quantileBucket = bucket(quantileSeconds);
        int kernelBucket = bucket(kernelSeconds);
        assertTrue(
                Math.abs(quantileBucket - kernelBucket) <= 1,
                "Prometheus " + quantileSeconds + " s in bucket " + quantileBucket + ", the kernel's " + kernelSeconds
                        + " s in bucket " + kernelBucket);
    }

    static int bucket(double seconds) {
        double[] bounds = HistogramBuckets.RTT_SECONDS.bounds();
        for (int i = 0; i < bounds.length; i++) {
            if (seconds <= bounds[i]) {
                return i;
            }
        }
        return bounds.length;
    }
}
