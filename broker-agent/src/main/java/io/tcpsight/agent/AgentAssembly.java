package io.tcpsight.agent;

import io.tcpsight.agent.internal.http.AgentHttpServer;
import io.tcpsight.agent.internal.listeners.ListenerWatch;
import io.tcpsight.agent.internal.naming.AgentRuntime;
import io.tcpsight.agent.internal.naming.BrokerConnectionIds;
import io.tcpsight.agent.internal.naming.BrokerSocketSettings;
import io.tcpsight.agent.internal.telemetry.TelemetryIntake;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.Round;
import io.tcpsight.internal.runtime.ObservationRuntime;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.TcpSockets;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent put together from its settings: the shared {@link ObservationRuntime} (monitor,
 * sampling thread, JMX), the listener watch, connect pacing, the HTTP endpoint and the registry it
 * serves, and the {@link AgentRuntime} that receives the hooks and names connections.
 */
final class AgentAssembly {
    private final AgentSettings settings;
    private final ObservationRuntime observation;
    private final AgentRuntime hooks;
    private final boolean nativeAvailable;
    private final BrokerSocketSettings brokerSockets;
    private final ConnectPacer connectPacer;
    /** What the client telemetry receiver hands pushes to, once the agent started. */
    private final TelemetryIntake telemetry;
    /** Kafka's connection ids and what their requests told, for the rules. */
    private final BrokerConnectionIds brokerIds;
    /** The endpoint's URL once it listens; null while it does not (off, or its port was taken). */
    private volatile String httpEndpoint;

    AgentAssembly(AgentSettings settings, AgentLog log) {
        this(settings, log, TcpSockets.availability().isAvailable());
    }

    /** @param nativeAvailable whether TCP_INFO can be read; without it connections are not tracked, the rest runs */
    AgentAssembly(AgentSettings settings, AgentLog log, boolean nativeAvailable) {
        this.settings = settings;
        this.nativeAvailable = nativeAvailable;
        OncePerKindLog failures = new OncePerKindLog(log);
        this.connectPacer = settings.connectRate > 0
                ? new ConnectPacer(settings.connectRate, settings.connectBurst, settings.connectMaxWaitMillis, log)
                : null;
        Map<Integer, String> listenerByPort = new ConcurrentHashMap<>();
        this.brokerSockets = BrokerSocketSettings.ofThisJvm();
        BrokerConnectionIds brokerIds = new BrokerConnectionIds(brokerSockets);
        this.brokerIds = brokerIds;
        this.telemetry = new TelemetryIntake(brokerIds::trackedFor, failures::failed);
        ListenerWatch listeners =
                new ListenerWatch(listenerByPort, settings.port, settings.listenBacklog, log::info, failures::failed);
        ObservationRuntime.Builder observation = ObservationRuntime.builder("tcpsight agent", settings.config)
                .log(log::info, log::warn)
                .samplerThread("tcpsight-agent-sampler")
                .hostRole(() -> listenerByPort.isEmpty() ? Role.CLIENT : Role.BROKER)
                .settings(brokerIds::requestedSettings)
                // the listeners' ports, told by connections read in the round (a carried one was read before)
                .readFindingSource(connections -> {
                    try {
                        return listeners.evaluate(settings.config, ListenerWatch.acceptedPorts(connections));
                    } catch (IOException | RuntimeException unreadable) {
                        failures.failed("listener watch", unreadable);
                        return Collections.emptyList();
                    }
                })
                .jmx("BrokerAgent", "agent");
        if (settings.port > 0) {
            observation.exporter("HTTP endpoint on " + settings.host + ":" + settings.port, monitor -> {
                AgentHttpServer server = AgentHttpServer.start(
                        settings.host,
                        settings.port,
                        settings.access,
                        EndpointMeters.prometheus(monitor, listeners.meters(), telemetry, connectPacer),
                        monitor,
                        brokerSockets::jsonFor,
                        log::warn);
                httpEndpoint = (settings.access.tls() ? "https://" : "http://") + settings.host + ":" + server.port()
                        + "/metrics"
                        + (settings.access.restricted() || settings.access.redacted()
                                ? " (" + settings.access.describe() + ")"
                                : "");
                if (!settings.access.restricted() && !isLoopback(settings.host)) {
                    log.warn("tcpsight agent: the HTTP endpoint listens on " + settings.host
                            + " with no TLS, authentication or allowlist: anyone who reaches the port reads client.ids,"
                            + " principals and addresses; set http.auth.token.file, http.allow or http.tls.*, or"
                            + " http.redact=true");
                }
                return server;
            });
        }
        this.observation = observation.build();
        this.hooks = new AgentRuntime(
                this.observation.registry(),
                brokerIds,
                listenerByPort,
                connectPacer == null ? () -> {} : connectPacer::pace,
                settings.congestion,
                settings.port,
                nativeAvailable,
                failures::failed);
    }

    /** A loopback address, or a name that resolves only to loopback ones (localhost). */
    static boolean isLoopback(String host) {
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (IOException unresolved) {
            return false;
        }
    }

    /** What the hooks call. */
    AgentRuntime hooks() {
        return hooks;
    }

    /** Adopts the connections open before the hooks (an attach). Returns how many. */
    int adoptOpenConnections() throws IOException {
        return hooks.adoptOpenConnections();
    }

    /** What the startup line says about the HTTP endpoint: its URL, or null when it does not listen. */
    String httpEndpoint() {
        return httpEndpoint;
    }

    /** The broker's own socket settings, as its config gives them, for the startup line. */
    BrokerSocketSettings brokerSockets() {
        return brokerSockets;
    }

    /** What the startup line says about connect pacing; null when it is off. */
    String connectPacing() {
        return connectPacer == null ? null : connectPacer.describe();
    }

    /**
     * Starts sampling and the outputs. Without the native library the agent goes on with what needs
     * none: connect pacing, the host's listen-queue counters, the endpoint and JMX.
     */
    void start(AgentLog log) {
        TcpSockets.availability().advice().ifPresent(log::warn); // refused: the line below names the option
        if (!nativeAvailable) {
            log.warn(TcpSockets.availability()
                    .unavailableLine(
                            "tcpsight agent",
                            "connections, listen queues and the host's qdisc and driver drops are not read; connect"
                                    + " pacing, the endpoint and the host's listen overflow counters go on"));
        }
        observation.start();
        ClientTelemetryHandoff.publish(telemetry);
    }

    /** The Kafka settings the rules judge this broker-side connection by in a round (a test's view). */
    KafkaSettings requestedSettings(TrackedConnection connection) {
        return brokerIds.requestedSettings(connection);
    }

    /** For tests in this package: the connection a request's context reaches, as a client's push is joined to it. */
    Optional<TrackedConnection> reachedBy(Object requestContext) {
        return brokerIds.trackedFor(requestContext);
    }

    /** For tests in this package: lets the connection on {@code fd} go as the sampler does when its descriptor went away. */
    void releaseAsTheSamplerDoes(int fd) {
        observation.registry().release(fd);
    }

    /** For tests in this package: what the registry tracks now. */
    List<TrackedConnection> tracked() {
        return observation.registry().connections();
    }

    /** For tests in this package: the latest round, as /connections shows it. */
    Round lastRound() {
        return observation.monitor().lastRound();
    }

    void close() {
        ClientTelemetryHandoff.withdraw(telemetry);
        observation.close();
    }
}
