package io.tcpsight.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A lab Connect worker's JMX, over the client control link: what a task's producer says of
 * itself in its own metrics, to check what the plugin made of them against.
 */
public final class WorkerJmx {
    private final String host;
    private final int port;

    WorkerJmx(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** The JVM options that open a worker's JMX on this address and port, without auth, for the lab only. */
    static List<String> options(String host, int port) {
        return List.of(
                "-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.host=" + host,
                "-Djava.rmi.server.hostname=" + host,
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false");
    }

    /**
     * One reading of the producer whose client.id starts with this prefix: its requests and bytes
     * sent to brokers so far (every {@code node-N}, not the bootstrap's {@code node--N}), and its
     * mean batch size.
     */
    public ProducerReading producer(String clientIdPrefix) throws IOException, JMException {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
        try (JMXConnector connector = JMXConnectorFactory.connect(url)) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            List<String> clients = new ArrayList<>();
            double requests = 0;
            double bytes = 0;
            for (ObjectName name :
                    server.queryNames(new ObjectName("kafka.producer:type=producer-node-metrics,*"), null)) {
                String clientId = name.getKeyProperty("client-id");
                String node = name.getKeyProperty("node-id");
                if (clientId.startsWith(clientIdPrefix) && node.startsWith("node-") && !node.startsWith("node--")) {
                    requests += ((Number) server.getAttribute(name, "request-total")).doubleValue();
                    bytes += ((Number) server.getAttribute(name, "outgoing-byte-total")).doubleValue();
                    if (!clients.contains(clientId)) {
                        clients.add(clientId);
                    }
                }
            }
            if (clients.size() != 1) {
                throw new IllegalStateException(
                        "one producer starting " + clientIdPrefix + " expected in the worker's JMX, found " + clients);
            }
            double batch = ((Number) server.getAttribute(
                            new ObjectName("kafka.producer:type=producer-metrics,client-id=" + clients.get(0)),
                            "batch-size-avg"))
                    .doubleValue();
            return new ProducerReading(System.nanoTime(), requests, bytes, batch);
        }
    }

    /** A producer's cumulative counts at one moment, and its mean batch size then. */
    public static final class ProducerReading {
        private final long nanos;
        private final double requests;
        private final double bytes;
        private final double batchSizeAvg;

        ProducerReading(long nanos, double requests, double bytes, double batchSizeAvg) {
            this.nanos = nanos;
            this.requests = requests;
            this.bytes = bytes;
            this.batchSizeAvg = batchSizeAvg;
        }

        /** Requests a second between that earlier reading and this one. */
        public double requestsPerSecondSince(ProducerReading earlier) {
            return (requests - earlier.requests) / ((nanos - earlier.nanos) / 1e9);
        }

        /** Bytes a request between that earlier reading and this one. */
        public double bytesPerRequestSince(ProducerReading earlier) {
            return (bytes - earlier.bytes) / (requests - earlier.requests);
        }

        public double batchSizeAvg() {
            return batchSizeAvg;
        }
    }
}
