package io.tcpsight.agent;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.internal.pacing.Pacer;

/**
 * Spaces out the TCP connects of every Kafka client in this JVM (opt-in: {@code connect.rate}).
 * A Connect worker's 200 task consumers each open a connection to the partition leader when the
 * group's assignment arrives, all within a second or two; pacing their task builds cannot spread
 * that, because the assignment waits for the last join. Pacing the connects themselves can. The
 * wait happens on the connecting client's own thread, before its socket connects, and never
 * exceeds {@code connect.max.wait}: past it the connect goes ahead unpaced and is counted.
 */
final class ConnectPacer implements MeterBinder {
    private final Pacer pacer;
    private final AgentLog log;

    ConnectPacer(double rate, long burst, long maxWaitMillis, AgentLog log) {
        this.pacer = new Pacer(rate, burst, maxWaitMillis);
        this.log = log;
    }

    void pace() {
        pacer.pace(() -> log.warn("tcpsight agent: a connect would wait more than connect.max.wait="
                + pacer.maxWaitMillis() + "ms for connect.rate=" + pacer.rate()
                + "/s; it goes ahead unpaced (reported once, counted in tcpsight_connects_capped_total)"));
    }

    String describe() {
        return "connects paced at " + pacer.rate() + " per second (burst " + pacer.burst() + ", wait at most "
                + pacer.maxWaitMillis() + " ms)";
    }

    long pacedConnects() {
        return pacer.paced();
    }

    long cappedConnects() {
        return pacer.capped();
    }

    double waitedSeconds() {
        return pacer.waitedSeconds();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("tcpsight.connects.paced", this, ConnectPacer::pacedConnects)
                .description("client connects that went through connect pacing")
                .register(registry);
        FunctionCounter.builder("tcpsight.connects.capped", this, ConnectPacer::cappedConnects)
                .description(
                        "client connects that would have waited longer than connect.max.wait and went ahead unpaced")
                .register(registry);
        FunctionCounter.builder("tcpsight.connects.pacing.wait", this, ConnectPacer::waitedSeconds)
                .baseUnit("seconds")
                .description("time client connects waited for connect pacing")
                .register(registry);
    }
}
