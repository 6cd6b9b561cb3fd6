package io.tcpsight.agent.internal.listeners;

import io.tcpsight.internal.tcp.ListenQueue;

/** One listener as a round saw it: its name (the Kafka listener, or "unknown") and its queue. */
final class ListenerState {
    final String listener;
    final ListenQueue queue;

    ListenerState(String listener, ListenQueue queue) {
        this.listener = listener;
        this.queue = queue;
    }
}
