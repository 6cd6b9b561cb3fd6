package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Equal values come back as the first copy held; the pool never holds more than its bound. */
class SharedValuesTest {
    @Test
    void anEqualValueComesBackAsTheCopyHeld() {
        SharedValues<String> names = new SharedValues<>(10);
        String first = new String("consumer-orders-1");
        String second = new String("consumer-orders-1");
        assertNotSame(first, second);
        assertSame(first, names.shared(first));
        assertSame(first, names.shared(second));
        assertEquals(1, names.size());
    }

    @Test
    void whenFullItStartsOverAndStaysWithinItsBound() {
        SharedValues<String> names = new SharedValues<>(3);
        for (int i = 0; i < 1_000; i++) {
            names.shared("client-" + i);
            assertEquals(Math.min(3, i % 3 + 1), names.size());
        }
        String held = names.shared("again");
        assertSame(held, names.shared(new String("again")), "shares again after starting over");
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> new SharedValues<>(0));
        assertEquals("capacity must be at least 1, got 0", refused.getMessage());
    }
}
