package io.tcpsight.doctor.fleet;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;

/**
 * Every broker of the cluster, as the cluster itself lists them (an Admin client's describeCluster
 * with the user's config), each with the URL of its agent: the broker's host and the agents' port,
 * unless the user gave that node's agent another address.
 */
final class FleetMembers {
    private FleetMembers() {}

    /**
     * The brokers' node ids and hosts, asked as the user's Admin config says (its default.api.timeout.ms,
     * else the Admin client's 60 s); a cluster that does not answer in time is an IllegalStateException
     * that says so.
     */
    static List<Node> brokers(Properties admin) throws InterruptedException {
        Admin created;
        try {
            created = Admin.create(admin);
        } catch (KafkaException refused) {
            throw new IllegalArgumentException(
                    "--command-config: the Admin client refuses it: " + refused.getMessage());
        }
        // Not held to --timeout-ms: a cold JVM's first Admin call took 6.3 to 6.5 s on a loaded lab host against
        // a broker on an undelayed link, and 3.1 s with the lab alone, where a 5 s bound listed no brokers of a
        // cluster that answered (lab.md).
        long timeoutMs = apiTimeoutMs(admin);
        try (Admin client = created) {
            // the Admin client ends the call itself at its timeout; the margin only keeps a stuck one from hanging
            Collection<Node> nodes = client.describeCluster().nodes().get(timeoutMs + 5_000, TimeUnit.MILLISECONDS);
            List<Node> sorted = new ArrayList<>(nodes);
            sorted.sort(Comparator.comparingInt(Node::id));
            return sorted;
        } catch (ExecutionException | TimeoutException unanswered) {
            Throwable cause = unanswered instanceof ExecutionException ? unanswered.getCause() : unanswered;
            throw new IllegalStateException("the cluster at "
                    + admin.getProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)
                    + " did not list its brokers within " + timeoutMs + " ms (default.api.timeout.ms): " + cause);
        }
    }

    /**
     * How long the Admin client gives a call: the config's default.api.timeout.ms; where it is not set, its
     * default, raised to request.timeout.ms when that is longer, as the Admin client itself does (it warns
     * and waits the longer one). Valid once Admin.create took the config.
     */
    static long apiTimeoutMs(Properties admin) {
        String configured = admin.getProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        if (configured != null) {
            return Long.parseLong(configured.trim());
        }
        Map<String, Object> defaults = AdminClientConfig.configDef().defaultValues();
        long apiTimeout = ((Number) defaults.get(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG)).longValue();
        String request = admin.getProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG);
        long requestTimeout = request != null
                ? Long.parseLong(request.trim())
                : ((Number) defaults.get(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG)).longValue();
        return Math.max(apiTimeout, requestTimeout);
    }

    /**
     * Each broker's agent: its own address where the user gave one, else scheme://host:port of the
     * broker's host. An address given for a node the cluster does not list is refused by name.
     */
    static List<FleetSource> agents(List<Node> brokers, String scheme, int port, Map<Integer, URI> given) {
        for (Integer node : given.keySet()) {
            if (brokers.stream().noneMatch(broker -> broker.id() == node)) {
                throw new IllegalArgumentException(
                        "--agent " + node + "=...: the cluster lists no broker " + node + "; its brokers: "
                                + brokers.stream()
                                        .map(broker -> Integer.toString(broker.id()))
                                        .toList());
            }
        }
        List<FleetSource> sources = new ArrayList<>();
        for (Node broker : brokers) {
            URI base = given.get(broker.id());
            if (base == null) {
                String host = broker.host().contains(":") ? "[" + broker.host() + "]" : broker.host();
                base = URI.create(scheme + "://" + host + ":" + port);
            }
            sources.add(FleetSource.broker(broker.id(), base));
        }
        return sources;
    }
}
