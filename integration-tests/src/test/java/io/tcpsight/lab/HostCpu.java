package io.tcpsight.lab;

/**
 * The test classes' claim on the host's two cores, for JUnit's resource locks. Classes that run
 * nothing across the lab's delay line (loopback brokers, containers, tools), and lab classes in a lab
 * of their own whose claims are names, keys and bounds far above what they take, may run beside the
 * others: {@code @Execution(CONCURRENT)} with {@code @ResourceLock(value = HostCpu.LOCK, mode = READ)}.
 * Classes whose claims depend on the host's capacity (an absolute rate, a time bound near what
 * the claim takes, the host's own signals, two labs of one test at once) take it whole; a bound far
 * above it (a request's second where it takes 20 ms) does not: {@code @ResourceLock(HostCpu.LOCK)}.
 * The rest run one after another, and beside at most one class of the first kind. The lab's delay line runs
 * SCHED_FIFO, so a busier host does not lengthen its round trips (docs/lab.md).
 */
public final class HostCpu {
    public static final String LOCK = "tcpsight.lab.host-cpu";

    private HostCpu() {}
}
