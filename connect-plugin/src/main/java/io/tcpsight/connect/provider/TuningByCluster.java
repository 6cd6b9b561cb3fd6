package io.tcpsight.connect.provider;

import io.tcpsight.connect.settings.ConnectSettings;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigException;

/**
 * One {@link ClusterTuning} per cluster a placeholder names, so that one worker adapts connectors
 * to several clusters: {@code ${tcpsight:fetch:KEY}} measures the worker's own cluster (or
 * {@code tcpsight.bootstrap.servers}), {@code ${tcpsight:fetch/ALIAS:KEY}} the cluster declared
 * in the provider's params as {@code tcpsight.cluster.ALIAS.bootstrap.servers}; the alias of a
 * MirrorMaker 2 source cluster is the natural one. Each tuning measures and caches on its own.
 */
public final class TuningByCluster {
    public static final String PATH = "fetch";
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
     * @throws ConfigException naming a declared cluster's key when it has no address
     */
    public void configure(ConnectSettings settings, Map<String, ?> params) {
        own.configure(settings);
        Map<String, String> declared = new TreeMap<>();
        for (Map.Entry<String, ?> param : params.entrySet()) {
            String key = param.getKey();
            if (key.startsWith(CLUSTER_PARAM_PREFIX) && key.endsWith(CLUSTER_PARAM_SUFFIX)) {
                String alias =
                        key.substring(CLUSTER_PARAM_PREFIX.length(), key.length() - CLUSTER_PARAM_SUFFIX.length());
                String servers = param.getValue() == null
                        ? ""
                        : String.valueOf(param.getValue()).trim();
                if (alias.isEmpty() || alias.contains("/") || servers.isEmpty()) {
                    throw new ConfigException(
                            key, param.getValue(), "a cluster alias without '/' and host:port[,host:port...]");
                }
                declared.put(alias, servers);
            }
        }
        byAlias.keySet().retainAll(declared.keySet());
        declared.forEach((alias, servers) -> {
            ClusterTuning tuning = byAlias.computeIfAbsent(alias, unused -> new ClusterTuning());
            tuning.configure(settings);
            tuning.measureAt(servers);
        });
    }

    /**
     * The tuning for a placeholder's path: {@code fetch} or {@code fetch/ALIAS}.
     *
     * @throws ConfigException naming the path and what is allowed
     */
    public ClusterTuning forPath(String path) {
        if (PATH.equals(path)) {
            return own;
        }
        if (path != null && path.startsWith(PATH + "/")) {
            ClusterTuning tuning = byAlias.get(path.substring(PATH.length() + 1));
            if (tuning != null) {
                return tuning;
            }
        }
        throw new ConfigException(
                "${tcpsight:<path>:<key>}",
                path,
                "'" + PATH + "' (the worker's cluster) or '" + PATH + "/<alias>' for a cluster declared as "
                        + "config.providers.<name>.param." + CLUSTER_PARAM_PREFIX + "<alias>" + CLUSTER_PARAM_SUFFIX
                        + "; declared here: " + new TreeMap<>(byAlias).keySet());
    }
}
