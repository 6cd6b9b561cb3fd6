package io.tcpsight.connect.internal.rest;

import io.tcpsight.connect.internal.observation.ClientNodeMetrics;
import io.tcpsight.internal.model.ClientKind;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The connector tasks that run in this worker, read from the Kafka clients they own: Connect
 * names a task's clients {@code connector-consumer-NAME-TASK} and {@code connector-producer-NAME-TASK},
 * and every client registers its metrics in this JVM's JMX. Unlike the REST API's task list this
 * needs no worker id: a task whose clients are here runs here. Each task's build time is its
 * earliest client's start, from the app-info every Kafka client registers.
 */
final class LocalTasks {
    private static final List<String> PATTERNS =
            Arrays.asList("kafka.consumer:type=consumer-metrics,*", "kafka.producer:type=producer-metrics,*");

    private LocalTasks() {}

    /** Connector name -> task id -> when its clients were built, where JMX says. */
    static Map<String, Map<Integer, Optional<Instant>>> read() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Map<String, Map<Integer, Optional<Instant>>> tasks = new TreeMap<>();
        for (String pattern : PATTERNS) {
            try {
                for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
                    String clientId = ClientNodeMetrics.unquote(name.getKeyProperty("client-id"));
                    Optional<String> connector = ClientKind.connectorName(clientId);
                    OptionalInt task = ClientKind.connectorTask(clientId);
                    if (connector.isEmpty() || task.isEmpty()) {
                        continue;
                    }
                    Optional<Instant> started = startTime(server, name.getDomain(), name.getKeyProperty("client-id"));
                    tasks.computeIfAbsent(connector.get(), ignored -> new TreeMap<>())
                            .merge(task.getAsInt(), started, LocalTasks::earlier);
                }
            } catch (MalformedObjectNameException | RuntimeException unreadable) {
                // no task is then known to run here, so none is restarted
            }
        }
        return tasks;
    }

    /** The prefix Connect gives its group member's client.id before the worker's id, unless client.id is set. */
    static final String WORKER_CLIENT_PREFIX = "connect-";

    /**
     * This worker's id as Connect's status records name it (its advertised host:port), from the
     * client.id of its group member, {@code connect-<worker id>} (DistributedHerder), as its metrics
     * register it. Empty where the worker's client.id is set, or no single member is found (a
     * dedicated MirrorMaker 2 runs one per cluster).
     */
    static Optional<String> ownWorkerId() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            Set<ObjectName> members =
                    server.queryNames(new ObjectName("kafka.connect:type=connect-coordinator-metrics,*"), null);
            if (members.size() != 1) {
                return Optional.empty();
            }
            String clientId =
                    ClientNodeMetrics.unquote(members.iterator().next().getKeyProperty("client-id"));
            return clientId != null && clientId.startsWith(WORKER_CLIENT_PREFIX)
                    ? Optional.of(clientId.substring(WORKER_CLIENT_PREFIX.length()))
                    : Optional.empty();
        } catch (MalformedObjectNameException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    /**
     * The client's start, from its app-info: the metric {@code start-time-ms}
     * ({@code kafka.consumer:type=app-info,client-id=CLIENT}, which a client built again under the
     * same id takes over), else Kafka's own MBean ({@code type=app-info,id=CLIENT}, attribute
     * {@code StartTimeMs}); the id as the client's metrics write it. Empty while the client is still
     * being built: both are registered at the end of its constructor.
     */
    private static Optional<Instant> startTime(MBeanServer server, String domain, String idAsWritten) {
        Optional<Instant> fromMetric =
                millis(server, domain + ":type=app-info,client-id=" + idAsWritten, "start-time-ms");
        return fromMetric.isPresent()
                ? fromMetric
                : millis(server, domain + ":type=app-info,id=" + idAsWritten, "StartTimeMs");
    }

    private static Optional<Instant> millis(MBeanServer server, String name, String attribute) {
        try {
            Object millis = server.getAttribute(new ObjectName(name), attribute);
            return millis instanceof Number
                    ? Optional.of(Instant.ofEpochMilli(((Number) millis).longValue()))
                    : Optional.empty();
        } catch (JMException | RuntimeException unknown) {
            return Optional.empty();
        }
    }

    private static Optional<Instant> earlier(Optional<Instant> one, Optional<Instant> other) {
        if (one.isEmpty() || other.isEmpty()) {
            return one.isPresent() ? one : other;
        }
        return one.get().isBefore(other.get()) ? one : other;
    }
}
