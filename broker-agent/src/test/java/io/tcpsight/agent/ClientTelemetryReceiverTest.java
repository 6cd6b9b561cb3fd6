package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tcpsight.agent.internal.naming.BrokerConnectionIds;
import io.tcpsight.agent.internal.telemetry.TelemetryIntake;
import io.tcpsight.agent.internal.telemetry.TelemetryIntake.Outcome;
import io.tcpsight.internal.export.ConnectionJson;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetryContext;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.junit.jupiter.api.Test;

/**
 * The receiver Kafka creates from metric.reporters, given pushes as Kafka's ClientMetricsManager
 * hands them on: with the PushTelemetry request's own RequestContext (its connection id) and the
 * payload's instance id and bytes. The agent runs on real loopback sockets, adopted as on an
 * attach; BrokerAgentIT proves it with a real broker and client.
 */
class ClientTelemetryReceiverTest {
    private static final Uuid INSTANCE = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    @Test
    void aPushLandsOnTheConnectionItCameOnAndShowsInConnections() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open();
                OpenLoopbackPair other = OpenLoopbackPair.open()) {
            AgentAssembly agent = startedAgent();
            try {
                String pushedOn = connectionId(pair);
                TcpsightClientTelemetry receiver = new TcpsightClientTelemetry();
                receiver.configure(Map.of("node.id", "1"));

                receiver.clientReceiver().exportMetrics(context(pushedOn), payload("OTLP", otlp()));

                TrackedConnection joined = connection(agent, pair.brokerSide());
                assertEquals(INSTANCE.toString(), joined.pushed().orElseThrow().clientInstanceId());
                assertEquals(
                        85.1,
                        joined.pushed()
                                .orElseThrow()
                                .figure(Figure.RECORD_QUEUE_TIME_AVG_MS)
                                .getAsDouble());
                assertEquals(
                        104.2,
                        joined.pushed()
                                .orElseThrow()
                                .figure(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS)
                                .getAsDouble());
                assertEquals(
                        Optional.empty(), connection(agent, other.brokerSide()).pushed(), "the other socket");
                assertEquals(1, ClientTelemetryHandoff.intake().count(Outcome.JOINED));
            } finally {
                agent.close();
            }
        }
    }

    /** Kafka 4.2 and later call the exporter, with the request's context inside theirs. */
    @Test
    void theExporterOfKafka42AndLaterLandsAPushTheSameWay() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly agent = startedAgent();
            try {
                String pushedOn = connectionId(pair);
                TcpsightClientTelemetryExporter exporter = new TcpsightClientTelemetryExporter();
                exporter.configure(Map.of("node.id", "1"));
                RequestContext request = context(pushedOn);

                exporter.clientTelemetryExporter()
                        .exportMetrics(
                                new ClientTelemetryContext() {
                                    @Override
                                    public int pushIntervalMs() {
                                        return 30_000;
                                    }

                                    @Override
                                    public AuthorizableRequestContext authorizableRequestContext() {
                                        return request;
                                    }
                                },
                                payload("OTLP", otlp()));

                assertEquals(
                        INSTANCE.toString(),
                        connection(agent, pair.brokerSide())
                                .pushed()
                                .orElseThrow()
                                .clientInstanceId());
            } finally {
                agent.close();
            }
        }
    }

    @Test
    void oversizedMalformedAndUntrackedPushesAreCountedAndDroppedWithoutAnExceptionIntoKafka() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly agent = startedAgent();
            try {
                String tracked = connectionId(pair);
                TcpsightClientTelemetry receiver = new TcpsightClientTelemetry();
                receiver.configure(Map.of("node.id", "1"));
                TelemetryIntake intake = ClientTelemetryHandoff.intake();

                receiver.exportMetrics(
                        context(tracked),
                        payload("application/x-protobuf", ByteBuffer.allocate(TelemetryIntake.MAX_PUSH_BYTES + 1)));
                receiver.exportMetrics(
                        context(tracked), payload("application/x-protobuf", ByteBuffer.wrap(new byte[] {-1, -1, -1})));
                receiver.exportMetrics(context(tracked), payload("application/json", otlp()));
                receiver.exportMetrics(
                        context("127.0.0.1:9092-127.0.0.1:1-0-1"), payload("application/x-protobuf", otlp()));

                assertEquals(1, intake.count(Outcome.OVERSIZED));
                assertEquals(2, intake.count(Outcome.MALFORMED));
                assertEquals(1, intake.count(Outcome.UNJOINED));
                assertEquals(0, intake.count(Outcome.JOINED));
                assertEquals(
                        Optional.empty(), connection(agent, pair.brokerSide()).pushed());
            } finally {
                agent.close();
            }
        }
    }

    /** An agent that stopped (or never started) takes no push: its intake counts nothing more. */
    @Test
    void withoutARunningAgentPushesAreDroppedWithoutAnExceptionIntoKafka() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly agent = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            agent.adoptOpenConnections();
            String pushedOn = connectionId(pair);
            TcpsightClientTelemetry receiver = new TcpsightClientTelemetry();
            receiver.configure(Map.of("node.id", "1"));
            receiver.exportMetrics(context(pushedOn), payload("OTLP", otlp()));

            agent.start(AgentLog.create());
            TelemetryIntake intake = ClientTelemetryHandoff.intake();
            agent.close();
            receiver.exportMetrics(context(pushedOn), payload("OTLP", otlp()));

            for (Outcome outcome : Outcome.values()) {
                assertEquals(0, intake.count(outcome), outcome + ": a stopped agent took a push");
            }
            assertEquals(Optional.empty(), connection(agent, pair.brokerSide()).pushed());
        }
    }

    @Test
    void connectionsShowTheClientInstanceIdAndItsFiguresBesideTheKernels() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly agent = startedAgent();
            try {
                String pushedOn = connectionId(pair);
                TcpsightClientTelemetry receiver = new TcpsightClientTelemetry();
                receiver.configure(Map.of("node.id", "1"));
                receiver.exportMetrics(context(pushedOn), payload("application/x-protobuf", otlp()));
                TrackedConnection joined = connection(agent, pair.brokerSide());
                String json = "";
                for (int i = 0; i < 100 && !json.contains("clientTelemetry"); i++) {
                    Thread.sleep(50); // the first round: /connections lists the connections a round judged
                    json = ConnectionJson.array(agent.lastRound().connections().stream()
                            .filter(judged -> judged.connection() == joined)
                            .collect(Collectors.toList()));
                }
                assertTrue(
                        json.contains("\"clientTelemetry\":{\"clientInstanceId\":\"" + INSTANCE
                                + "\",\"recordQueueTimeAvgMs\":85.1,\"producerRequestLatencyAvgMs\":104.2}"),
                        json);
            } finally {
                agent.close();
            }
        }
    }

    /** An agent that adopted the open sockets and started: the receiver reaches a started agent only. */
    private static AgentAssembly startedAgent() throws IOException {
        AgentAssembly agent = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
        agent.adoptOpenConnections();
        agent.start(AgentLog.create());
        return agent;
    }

    /** Kafka's id for the broker's end of the pair (4.x: local-remote-processor-index). */
    private static String connectionId(OpenLoopbackPair pair) throws IOException {
        return BrokerConnectionIds.addressKey(pair.brokerSide(), pair.clientSide()) + "-2-7";
    }

    private static TrackedConnection connection(AgentAssembly agent, InetSocketAddress brokerSide) {
        return agent.tracked().stream()
                .filter(tracked -> tracked.identity().local().equals(Optional.of(brokerSide)))
                .findFirst()
                .orElseThrow();
    }

    private static RequestContext context(String connectionId) {
        return ProcessorRequests.context(
                ApiKeys.METADATA,
                connectionId,
                "edge-producer",
                KafkaPrincipal.ANONYMOUS,
                new ClientInformation("apache-kafka-java", "4.3.1"),
                "PLAINTEXT",
                SecurityProtocol.PLAINTEXT);
    }

    private static ByteBuffer otlp() {
        MetricsData push = MetricsData.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .addMetrics(gauge("org.apache.kafka.producer.record.queue.time.avg", 85.1, null))
                                .addMetrics(
                                        gauge("org.apache.kafka.producer.node.request.latency.avg", 104.2, "node-1"))))
                .build();
        return ByteBuffer.wrap(push.toByteArray());
    }

    private static Metric gauge(String name, double value, String nodeId) {
        NumberDataPoint.Builder point = NumberDataPoint.newBuilder().setAsDouble(value);
        if (nodeId != null) {
            point.addAttributes(KeyValue.newBuilder()
                    .setKey("node_id")
                    .setValue(AnyValue.newBuilder().setStringValue(nodeId)));
        }
        return Metric.newBuilder()
                .setName(name)
                .setGauge(Gauge.newBuilder().addDataPoints(point))
                .build();
    }

    /** A payload as Kafka's DefaultClientTelemetryPayload carries it (a plain value holder of Kafka's interface). */
    private static ClientTelemetryPayload payload(String contentType, ByteBuffer data) {
        return new ClientTelemetryPayload() {
            @Override
            public Uuid clientInstanceId() {
                return INSTANCE;
            }

            @Override
            public boolean isTerminating() {
                return false;
            }

            @Override
            public String contentType() {
                return contentType;
            }

            @Override
            public ByteBuffer data() {
                return data;
            }
        };
    }
}
