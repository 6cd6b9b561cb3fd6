package io.tcpsight.connect.internal.rest;

import io.tcpsight.connect.internal.observation.ClientNodeMetrics;
import io.tcpsight.internal.model.ClientKind;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The connector tasks that run in this worker, read from the Kafka clients they own: Connect
 * names a task's clients {@code connector-consumer-NAME-TASK} and {@code connector-producer-NAME-TASK},
 * and every client registers its metrics in this JVM's JMX. Unlike the REST API's task list this
 * needs no worker id: a task whose clients are here runs here.
 */
final class LocalTasks {
    private static final List<String> PATTERNS =
            Arrays.asList("kafka.consumer:type=consumer-metrics,*", "kafka.producer:type=producer-metrics,*");

    private LocalTasks() {}

    /** Connector name -> the ids of its tasks with a client in this JVM. */
    static Map<String, Set<Integer>> read() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Map<String, Set<Integer>> tasks = new TreeMap<>();
        for (String pattern : PATTERNS) {
            try {
                for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
                    String clientId = ClientNodeMetrics.unquote(name.getKeyProperty("client-id"));
                    ClientKind.connectorName(clientId).ifPresent(connector -> ClientKind.connectorTask(clientId)
                            .ifPresent(task -> tasks.computeIfAbsent(connector, ignored -> new TreeSet<>())
                                    .add(task)));
                }
            } catch (MalformedObjectNameException | RuntimeException unreadable) {
                // no task is then known to run here, so none is restarted
            }
        }
        return tasks;
    }
}
