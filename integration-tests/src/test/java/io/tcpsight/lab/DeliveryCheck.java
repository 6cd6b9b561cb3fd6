package io.tcpsight.lab;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer callback that keeps count of what failed, for a test that writes its setup with
 * fire-and-forget sends: {@code KafkaProducer.close()} waits for every send but throws nothing
 * when one failed, so a lost record would show only later, as a count that never arrives, with
 * its cause gone. {@link #assertAllDelivered()} after the close names the first failure.
 */
public final class DeliveryCheck implements Callback {
    private final String what;
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<Exception> first = new AtomicReference<>();

    public DeliveryCheck(String what) {
        this.what = what;
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        if (exception != null) {
            failed.incrementAndGet();
            first.compareAndSet(null, exception);
        }
    }

    /** Call once the producer is closed, when every send has completed. */
    public void assertAllDelivered() {
        if (failed.get() > 0) {
            throw new AssertionError(
                    failed.get() + " records of " + what + " were not delivered; the first failure: " + first.get(),
                    first.get());
        }
    }
}
