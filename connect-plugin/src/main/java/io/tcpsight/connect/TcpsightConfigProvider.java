package io.tcpsight.connect;

import io.tcpsight.connect.internal.provider.ClusterTuning;
import io.tcpsight.connect.internal.provider.TuningByCluster;
import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.connect.internal.state.PluginState;
import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.model.LogText;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ${tcpsight:fetch:<key>}}: consumer fetch sizes and buffers from the bandwidth-delay
 * product to the cluster; {@code ${tcpsight:produce:<key>}}: producer batch sizes and buffers
 * for the same path; {@code ${tcpsight:fetch/<alias>:<key>}} and {@code produce/<alias>} the same
 * for another cluster, declared in the params (see {@link TuningByCluster}). Connect resolves placeholders each time
 * it builds a connector's tasks, so a task (re)start gets values for the RTT measured then.
 *
 * <pre>
 * config.providers=tcpsight
 * config.providers.tcpsight.class=io.tcpsight.connect.TcpsightConfigProvider
 * config.providers.tcpsight.param.tcpsight.target.throughput.mbit=200
 * consumer.override.fetch.max.bytes=${tcpsight:fetch:fetch.max.bytes}
 * config.providers.tcpsight.param.tcpsight.cluster.far.bootstrap.servers=far-1:9092
 * source.consumer.max.partition.fetch.bytes=${tcpsight:fetch/far:max.partition.fetch.bytes}  (an MM2 connector)
 * producer.override.batch.size=${tcpsight:produce:batch.size}  (a source connector)
 * </pre>
 *
 * No TTL is returned: a TTL restarts only the connector, not its tasks (KAFKA-17627), and would
 * not change what running tasks use; the REST extension's opt-in re-adaptation restarts tasks.
 */
public class TcpsightConfigProvider implements ConfigProvider {
    private static final Logger LOG = LoggerFactory.getLogger(TcpsightConfigProvider.class);

    private final TuningByCluster tunings;

    public TcpsightConfigProvider() {
        this(PluginState.worker().workerCluster());
    }

    TcpsightConfigProvider(ClusterTuning tuning) {
        this.tunings = new TuningByCluster(tuning);
    }

    /**
     * A failure here (a bad param, a class that does not link) is one line: the worker runs on, and
     * each placeholder resolves as get() can, Kafka's defaults where nothing was measured.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        try {
            tunings.configure(ConnectSettings.from(configs, ConnectSettings.PROVIDER_KEYS), configs);
        } catch (Throwable failure) {
            LOG.warn(
                    "tcpsight config provider: its params were not applied, the worker runs on and ${tcpsight:...}"
                            + " hands out what it can ({})",
                    LogText.oneLine(
                            failure instanceof InvalidSettingException || failure instanceof ConfigException
                                    ? failure.getMessage()
                                    : failure.toString()));
        }
    }

    @Override
    public ConfigData get(String path) {
        return new ConfigData(values(path));
    }

    @Override
    public ConfigData get(String path, Set<String> keys) {
        Map<String, String> values = values(path);
        Map<String, String> wanted = new LinkedHashMap<>();
        for (String key : keys) {
            String value = values.get(key);
            if (value == null) {
                throw new ConfigException(
                        "${tcpsight:" + path + ":" + key + "}", key, "tcpsight knows " + values.keySet());
            }
            wanted.put(key, value);
        }
        return new ConfigData(Collections.unmodifiableMap(wanted));
    }

    private Map<String, String> values(String path) {
        return tunings.forPath(path).handOut().valuesFor(tunings.useOf(path));
    }

    @Override
    public void close() {
        // the tuning is the worker's, shared with the other plugin types (PluginState)
    }
}
