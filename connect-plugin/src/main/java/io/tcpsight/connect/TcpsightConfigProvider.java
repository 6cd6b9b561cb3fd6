package io.tcpsight.connect;

import io.tcpsight.connect.internal.provider.ClusterAccess;
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
 * config.providers.tcpsight.param.bootstrap.servers=broker-1:9093,broker-2:9093
 * config.providers.tcpsight.param.security.protocol=SSL
 * config.providers.tcpsight.param.ssl.truststore.type=PEM
 * config.providers.tcpsight.param.ssl.truststore.location=/opt/kafka/connect-certs/orders-cluster-ca-cert/ca.crt
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
    /** Empty once the params were applied; else the line that said why not. */
    private volatile String misconfigured = "";

    public TcpsightConfigProvider() {
        this(PluginState.worker().workerCluster());
    }

    TcpsightConfigProvider(ClusterTuning tuning) {
        this.tunings = new TuningByCluster(tuning);
    }

    /**
     * A failure here (a bad param, a class that does not link) is one line naming it: the worker runs
     * on, and no placeholder is resolved until the params are fixed, since values for a target or a
     * cluster the operator did not choose would pass for the ones asked for.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        try {
            ConnectSettings settings = ConnectSettings.from(configs, ConnectSettings.PROVIDER_KEYS);
            ClusterAccess access = ClusterAccess.fromParams(configs);
            misconfigured = "";
            try {
                tunings.configure(settings, access, configs);
            } catch (ConfigException badAlias) {
                // the other clusters are declared: one bad alias costs only its own placeholders
                LOG.warn("tcpsight config provider: {}", LogText.oneLine(badAlias.getMessage()));
            }
        } catch (Throwable failure) {
            misconfigured = "tcpsight config provider: its params were not applied, the worker runs on and every"
                    + " ${tcpsight:...} stays unresolved until they are fixed: "
                    + LogText.oneLine(
                            failure instanceof InvalidSettingException || failure instanceof ConfigException
                                    ? failure.getMessage()
                                    : failure.toString());
            LOG.warn(misconfigured);
        }
    }

    @Override
    public ConfigData get(String path) {
        return new ConfigData(values(path));
    }

    /**
     * The values asked for; none while the provider refuses (no cluster known, or params not
     * applied): Kafka then leaves each placeholder as written, and the client that gets it fails on
     * it, naming it, where the worker itself runs on.
     */
    @Override
    public ConfigData get(String path, Set<String> keys) {
        Map<String, String> values = values(path);
        if (values.isEmpty()) {
            return new ConfigData(Map.of());
        }
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
        ClusterTuning tuning = tunings.forPath(path);
        if (!misconfigured.isEmpty() || tuning.refusal().isPresent()) {
            return Map.of();
        }
        return tuning.handOut().valuesFor(tunings.useOf(path));
    }

    @Override
    public void close() {
        // the tuning is the worker's, shared with the other plugin types (PluginState)
    }
}
