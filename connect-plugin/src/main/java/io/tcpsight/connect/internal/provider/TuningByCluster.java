package io.tcpsight.connect.internal.provider;

import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.internal.model.LogText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigException;

/**
 * One {@link ClusterTuning} per cluster a placeholder names, so that one worker adapts connectors
 * to several clusters: {@code ${tcpsight:fetch:KEY}} (or {@code produce}) measures the worker's
 * own cluster (the params' {@code bootstrap.servers}, else the worker's), {@code ${tcpsight:fetch/ALIAS:KEY}} the
 * cluster declared in the provider's params as {@code tcpsight.cluster.ALIAS.bootstrap.servers};
 * the alias of a MirrorMaker 2 source cluster is the natural one. Each tuning measures and caches
 * on its own, for both uses.
 */
public final class TuningByCluster {
    static final String CLUSTER_PARAM_PREFIX = "tcpsight.cluster.";
    static final String CLUSTER_PARAM_SUFFIX = ".bootstrap.servers";

    private final ClusterTuning own;
    private final Map<String, ClusterTuning> byAlias = new ConcurrentHashMap<>();

    public TuningByCluster(ClusterTuning own) {
        this.own = own;
    }

    /**
     * The provider's params: the shared settings for every tuning, and one tuning per declared
     * alias.
     *
     * @throws ConfigException naming each declared cluster's key that has no address, once the
     *     others are configured: one bad alias costs only its own placeholders
     */
    public void configure(ConnectSettings settings, ClusterAccess access, Map<String, ?> params) {
        own.configure(settings, access);
        Map<String, String> declared = new TreeMap<>();
        List<String> bad = new ArrayList<>();
        for (Map.Entry<String, ?> param : params.entrySet()) {
            String key = param.getKey();
            if (key.startsWith(CLUSTER_PARAM_PREFIX) && key.endsWith(CLUSTER_PARAM_SUFFIX)) {
                String alias =
                        key.substring(CLUSTER_PARAM_PREFIX.length(), key.length() - CLUSTER_PARAM_SUFFIX.length());
                String servers = param.getValue() == null
                        ? ""
                        : String.valueOf(param.getValue()).trim();
                if (alias.isEmpty() || alias.contains("/") || servers.isEmpty()) {
                    bad.add(key + "=" + LogText.oneLine(String.valueOf(param.getValue())));
                } else {
                    declared.put(alias, servers);
                }
            }
        }
        byAlias.keySet().retainAll(declared.keySet());
        declared.forEach((alias, servers) -> {
            ClusterTuning tuning = byAlias.computeIfAbsent(alias, unused -> new ClusterTuning());
            tuning.configure(settings);
            tuning.measureAt(
                    servers, "config.providers.tcpsight.param." + CLUSTER_PARAM_PREFIX + alias + CLUSTER_PARAM_SUFFIX);
        });
        if (!bad.isEmpty()) {
            throw new ConfigException(String.join(", ", bad)
                    + " is not valid: a cluster alias without '/' and host:port[,host:port...]; the other clusters"
                    + " are declared");
        }
    }

    /**
     * The tuning for a placeholder's path: {@code fetch}, {@code produce}, or either with
     * {@code /ALIAS}.
     *
     * @throws ConfigException naming the path and what is allowed
     */
    public ClusterTuning forPath(String path) {
        SettingsUse use = useOf(path);
        if (use.path().equals(path)) {
            return own;
        }
        ClusterTuning tuning = byAlias.get(path.substring(use.path().length() + 1));
        if (tuning == null) {
            throw unknownPath(path);
        }
        return tuning;
    }

    /**
     * What a placeholder's path asks for.
     *
     * @throws ConfigException naming the path and what is allowed
     */
    public SettingsUse useOf(String path) {
        for (SettingsUse use : SettingsUse.values()) {
            if (use.path().equals(path) || (path != null && path.startsWith(use.path() + "/"))) {
                return use;
            }
        }
        throw unknownPath(path);
    }

    private ConfigException unknownPath(String path) {
        return new ConfigException(
                "${tcpsight:<path>:<key>}",
                path,
                "'fetch' or 'produce' (the worker's cluster), or 'fetch/<alias>' or 'produce/<alias>' for a cluster"
                        + " declared as config.providers.<name>.param." + CLUSTER_PARAM_PREFIX + "<alias>"
                        + CLUSTER_PARAM_SUFFIX + "; declared here: " + new TreeMap<>(byAlias).keySet());
    }
}
