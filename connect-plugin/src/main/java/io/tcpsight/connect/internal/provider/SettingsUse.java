package io.tcpsight.connect.internal.provider;

import io.tcpsight.internal.tuning.ProducerSizing;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What a placeholder's path asks for: a consumer's fetch settings ({@code fetch}) or a
 * producer's batch settings ({@code produce}), each for the path to one cluster. Both take
 * send.buffer.bytes, the producer's socket, which a consumer override has never needed but
 * placeholders already use.
 */
public enum SettingsUse {
    FETCH(
            "fetch",
            "fetch.max.bytes",
            "max.partition.fetch.bytes",
            "max.poll.records",
            "receive.buffer.bytes",
            "send.buffer.bytes"),
    PRODUCE("produce", ProducerSizing.KEYS.toArray(new String[0]));

    private final String path;
    private final List<String> keys;

    SettingsUse(String path, String... keys) {
        this.path = path;
        this.keys = Collections.unmodifiableList(Arrays.asList(keys));
    }

    /** The first part of a placeholder's path: {@code fetch} or {@code produce}. */
    public String path() {
        return path;
    }

    /** The client keys this use hands out. */
    public List<String> keys() {
        return keys;
    }
}
