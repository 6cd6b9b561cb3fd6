package io.tcpsight.agent;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.connection.TokenBucket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Spaces out the TCP connects of every Kafka client in this JVM (opt-in: {@code connect.rate}).
 * A Connect worker's 200 task consumers each open a connection to the partition leader when the
 * group's assignment arrives, all within a second or two; pacing their task builds cannot spread
 * that, because the assignment waits for the last join. Pacing the connects themselves can: a
 * broker's SYN queue holds at most its backlog of handshakes per RTT, so {@code burst + rate x RTT}
 * below the backlog sends no SYN cookie. The wait happens on the connecting client's own thread,
 * before its socket connects, and never exceeds {@code connect.max.wait}: past it the connect goes
 * ahead unpaced and is counted.
 */
final class ConnectPacer implements MeterBinder {
    private final TokenBucket bucket;
    private final long maxWaitNanos;
    private final double rate;
    private final long burst;
    private final AgentLog log;
    private final AtomicLong paced = new AtomicLong();
    private final AtomicLong capped = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();

    ConnectPacer(double rate, long burst, long maxWaitMillis, AgentLog log) {
        this.bucket = new TokenBucket(rate, burst);
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
        this.rate = rate;
        this.burst = burst;
        this.log = log;
    }

    /** Waits for this connect's turn, at most the cap. An interrupt ends the wait and is kept for Kafka to see. */
    void pace() {
        long wait = bucket.reserve(System.nanoTime(), maxWaitNanos);
        paced.incrementAndGet();
        if (wait < 0) {
            if (capped.incrementAndGet() == 1) {
                log.warn("tcpsight agent: a connect would wait more than connect.max.wait=" + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
                        + "ms for connect.rate=" + rate + "/s; it goes ahead unpaced (reported once, counted in tcpsight_connects_capped_total)");
            }
            return;
        }
        if (wait > 0) {
            waitedNanos.addAndGet(wait);
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    String describe() {
        return "connects paced at " + rate + " per second (burst " + burst + ", wait at most " + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) + " ms)";
    }

    long pacedConnects() {
        return paced.get();
    }

    long cappedConnects() {
        return capped.get();
    }

    double waitedSeconds() {
        return waitedNanos.get() / 1e9;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("tcpsight.connects.paced", this, ConnectPacer::pacedConnects)
                .description("client connects that went through connect pacing").register(registry);
        FunctionCounter.builder("tcpsight.connects.capped", this, ConnectPacer::cappedConnects)
                .description("client connects that would have waited longer than connect.max.wait and went ahead unpaced").register(registry);
        FunctionCounter.builder("tcpsight.connects.pacing.wait", this, ConnectPacer::waitedSeconds).baseUnit("seconds")
                .description("time client connects waited for connect pacing").register(registry);
    }
}
