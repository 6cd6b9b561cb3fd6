package io.tcpsight.internal.model;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One copy of each equal value that many connections hold: a client.id or principal sent by
 * thousands of connections, the same buffer settings on most of a broker's sockets. A broker
 * holding 100,000 connections would otherwise keep 100,000 equal copies. Bounded: when full it
 * starts over, so values that never repeat cost at most its bound.
 */
public final class SharedValues<T> {
    private final int capacity;
    private final ConcurrentHashMap<T, T> values = new ConcurrentHashMap<>();

    public SharedValues(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** The copy equal to {@code value} already held, or {@code value} itself, held from now on. */
    public T shared(T value) {
        T held = values.get(value);
        if (held != null) {
            return held;
        }
        if (values.size() >= capacity) {
            values.clear();
        }
        held = values.putIfAbsent(value, value);
        return held != null ? held : value;
    }

    public int size() {
        return values.size();
    }
}
