package io.tcpsight.connect;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.ConfigProvider;

/**
 * {@code ${tcpsight:fetch:<key>}}: consumer fetch sizes and buffers from the bandwidth-delay
 * product to the cluster. Connect resolves placeholders each time it builds a connector's
 * tasks, so a task (re)start gets values for the RTT measured then.
 *
 * <pre>
 * config.providers=tcpsight
 * config.providers.tcpsight.class=io.tcpsight.connect.TcpsightConfigProvider
 * config.providers.tcpsight.param.tcpsight.target.throughput.mbit=200
 * consumer.override.fetch.max.bytes=${tcpsight:fetch:fetch.max.bytes}
 * </pre>
 *
 * No TTL is returned: a TTL restarts only the connector, not its tasks (KAFKA-17627), and would
 * not change what running tasks use; the REST extension's opt-in re-adaptation restarts tasks.
 */
public class TcpsightConfigProvider implements ConfigProvider {
    static final String PATH = "fetch";

    private final FetchAdvisor advisor;

    public TcpsightConfigProvider() {
        this(FetchAdvisor.shared());
    }

    TcpsightConfigProvider(FetchAdvisor advisor) {
        this.advisor = advisor;
    }

    @Override
    public void configure(Map<String, ?> configs) {
        advisor.configure(ConnectSettings.from(configs, ConnectSettings.PROVIDER_KEYS));
    }

    @Override
    public ConfigData get(String path) {
        checkPath(path);
        return new ConfigData(advisor.handOut().values());
    }

    @Override
    public ConfigData get(String path, Set<String> keys) {
        checkPath(path);
        Map<String, String> values = advisor.handOut().values();
        Map<String, String> wanted = new LinkedHashMap<>();
        for (String key : keys) {
            String value = values.get(key);
            if (value == null) {
                throw new ConfigException(
                        "${tcpsight:" + PATH + ":" + key + "}", key, "tcpsight knows " + values.keySet());
            }
            wanted.put(key, value);
        }
        return new ConfigData(Collections.unmodifiableMap(wanted));
    }

    private static void checkPath(String path) {
        if (!PATH.equals(path)) {
            throw new ConfigException(
                    "${tcpsight:<path>:<key>}",
                    path,
                    "the only path is '" + PATH + "', e.g. ${tcpsight:fetch:fetch.max.bytes}");
        }
    }

    @Override
    public void close() {
        // the advisor is shared by the other plugin types of this worker
    }
}
