package io.tcpsight.connect.internal.observation;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which broker node sits at which address, from an Admin client built out of the worker's own
 * client settings (bootstrap, security, admin.* overrides). Refreshed at most once a minute,
 * each lookup bounded, so a slow cluster never stalls sampling for long.
 */
final class BrokerDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerDirectory.class);
    private static final long REFRESH_NANOS = TimeUnit.MINUTES.toNanos(1);
    static final String CLIENT_ID = "tcpsight-connect-brokers";

    private final Map<String, Object> adminConfig;
    private Admin admin;
    private volatile Map<InetSocketAddress, String> nodes = Collections.emptyMap();
    private volatile Set<Integer> ports = Collections.emptySet();
    private long refreshedAt;
    private boolean failureLogged;

    BrokerDirectory(Map<String, ?> workerConfig) {
        this.adminConfig = adminConfig(workerConfig);
    }

    /** The worker's connection settings for an admin client: shared security keys, then admin.* overrides. */
    static Map<String, Object> adminConfig(Map<String, ?> workerConfig) {
        Map<String, Object> config = new HashMap<>();
        for (Map.Entry<String, ?> entry : workerConfig.entrySet()) {
            String key = entry.getKey();
            if (key.equals("bootstrap.servers")
                    || key.equals("security.protocol")
                    || key.equals("client.dns.lookup")
                    || key.startsWith("sasl.")
                    || key.startsWith("ssl.")) {
                config.put(key, entry.getValue());
            }
        }
        for (Map.Entry<String, ?> entry : workerConfig.entrySet()) {
            if (entry.getKey().startsWith("admin.")) {
                config.put(entry.getKey().substring("admin.".length()), entry.getValue());
            }
        }
        config.put("client.id", CLIENT_ID);
        config.put("request.timeout.ms", "5000");
        config.put("default.api.timeout.ms", "5000");
        return config;
    }

    /** Looks the brokers up again when the last lookup is older than a minute. Never throws. */
    void refreshIfStale() {
        long now = System.nanoTime();
        if (refreshedAt != 0 && now - refreshedAt < REFRESH_NANOS) {
            return;
        }
        refreshedAt = now;
        try {
            if (admin == null) {
                admin = Admin.create(adminConfig);
            }
            Map<InetSocketAddress, String> found = new HashMap<>();
            Set<Integer> foundPorts = new HashSet<>();
            for (Node node : admin.describeCluster().nodes().get(5, TimeUnit.SECONDS)) {
                foundPorts.add(node.port());
                try {
                    for (InetAddress address : InetAddress.getAllByName(node.host())) {
                        found.put(new InetSocketAddress(address, node.port()), node.idString());
                    }
                } catch (UnknownHostException unresolvable) {
                    // this worker cannot reach that broker by name either; its sockets stay without a node id
                }
            }
            nodes = found;
            ports = foundPorts;
            failureLogged = false;
        } catch (Exception failed) {
            if (!failureLogged) {
                LOG.warn(
                        "tcpsight: cannot list the brokers ({}); connections are shown without node ids until it works",
                        failed.toString());
                failureLogged = true;
            }
            if (failed instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The node id of the broker at this address, or null. */
    String nodeAt(InetSocketAddress address) {
        return nodes.get(address);
    }

    Set<Integer> brokerPorts() {
        return ports;
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
    }
}
