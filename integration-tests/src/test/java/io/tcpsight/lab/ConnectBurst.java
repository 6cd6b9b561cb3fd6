package io.tcpsight.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * N TCP connects started at once from one thread, each timed from connect() to its completion:
 * what a burst of client startups sees of a listener's queue (a dropped SYN costs 1 s, then 3 s).
 */
public final class ConnectBurst {
    /** Each connect's time in milliseconds, sorted; a connect that never completed is absent. */
    public final List<Long> millis;

    public final int attempted;

    private ConnectBurst(List<Long> millis, int attempted) {
        this.millis = millis;
        this.attempted = attempted;
    }

    /** Connects {@code count} sockets to the address at once and waits up to {@code timeoutMillis} for all. */
    public static ConnectBurst run(String host, int port, int count, long timeoutMillis) throws IOException {
        InetSocketAddress target = new InetSocketAddress(host, port);
        List<SocketChannel> channels = new ArrayList<>();
        List<Long> millis = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < count; i++) {
                SocketChannel channel = SocketChannel.open();
                channels.add(channel);
                channel.configureBlocking(false);
                long started = System.nanoTime();
                if (channel.connect(target)) {
                    millis.add(0L);
                } else {
                    channel.register(selector, SelectionKey.OP_CONNECT, started);
                }
            }
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            while (millis.size() < count && System.nanoTime() < deadline) {
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel channel = (SocketChannel) key.channel();
                    try {
                        if (channel.finishConnect()) {
                            millis.add((System.nanoTime() - (Long) key.attachment()) / 1_000_000);
                            key.cancel();
                        }
                    } catch (IOException refused) {
                        key.cancel();
                    }
                }
                selector.selectedKeys().clear();
            }
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
        Collections.sort(millis);
        return new ConnectBurst(millis, count);
    }

    public long percentile(double share) {
        return millis.isEmpty() ? -1 : millis.get(Math.min(millis.size() - 1, (int) Math.floor(share * millis.size())));
    }

    public long max() {
        return millis.isEmpty() ? -1 : millis.get(millis.size() - 1);
    }

    /** Connects that took a second or more, or never completed. */
    public long overOneSecond() {
        return millis.stream().filter(ms -> ms >= 1000).count() + (attempted - millis.size());
    }

    @Override
    public String toString() {
        return String.format(
                "%d connects: p50 %d ms, p99 %d ms, max %d ms, %d over 1 s (%d never)",
                attempted, percentile(0.5), percentile(0.99), max(), overOneSecond(), attempted - millis.size());
    }
}
