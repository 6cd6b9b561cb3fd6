package io.tcpsight.agent;

import io.tcpsight.agent.hooks.Hooks;
import io.tcpsight.agent.http.AgentHttpServer;
import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.connection.ClientConnectionIds;
import io.tcpsight.connection.ConnectionIdentity;
import io.tcpsight.connection.ConnectionMonitor;
import io.tcpsight.connection.ConnectionRegistry;
import io.tcpsight.connection.Role;
import io.tcpsight.connection.SamplingLoop;
import io.tcpsight.connection.TrackedConnection;
import io.tcpsight.diagnose.FindingsBoard;
import io.tcpsight.diagnose.KafkaSettings;
import io.tcpsight.diagnose.KernelFacts;
import io.tcpsight.export.TcpsightJmx;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.tcp.ProcessSocket;
import io.tcpsight.tcp.ProcessSocketCensus;
import io.tcpsight.tcp.TcpSocketException;
import io.tcpsight.tcp.TcpState;
import io.tcpsight.tcp.TcpSockets;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything the agent keeps at run time: the registry of Kafka connections (fed by the hooks),
 * the monitor and its daemon sampling thread, the listener watch, and the outputs.
 */
final class AgentRuntime implements Hooks.Receiver {
    private final AgentSettings settings;
    private final AgentLog log;
    private final ConnectionRegistry registry;
    private final ConnectionMonitor monitor;
    private final ListenerWatch listeners;
    /** Broker-side Kafka connection id -> connection, for attribution by RequestContext. */
    private final Map<String, TrackedConnection> byConnectionId = new ConcurrentHashMap<>();
    /**
     * Broker-side connections adopted from the census (opened before the hooks were installed), by
     * Kafka's connection id without its index ("local:port-remote:port"), until a request names them.
     */
    private final Map<String, TrackedConnection> adoptedByAddresses = new ConcurrentHashMap<>();
    private final Map<Object, String> clientIdBySelector = Collections.synchronizedMap(new WeakHashMap<>());
    private final Map<Integer, String> listenerByPort = new ConcurrentHashMap<>();
    private final Set<String> reportedFailures = ConcurrentHashMap.newKeySet();
    private final boolean nativeAvailable;
    private final ConnectPacer connectPacer;
    private SamplingLoop loop;
    private AgentHttpServer http;
    private TcpsightJmx jmx;

    AgentRuntime(AgentSettings settings, AgentLog log) {
        this.settings = settings;
        this.log = log;
        TcpsightConfig config = settings.config;
        this.registry = new ConnectionRegistry(config.get(TcpsightConfig.MAX_TRACKED_CONNECTIONS).intValue());
        FindingsBoard board = new FindingsBoard(config.get(TcpsightConfig.FINDING_LOG_INTERVAL_MS), finding -> finding.logTo(log::info, log::warn));
        this.monitor = new ConnectionMonitor(registry, config, connection -> KafkaSettings.unknown(),
                () -> KernelFacts.from(HostTcpFacts.current()), board);
        this.listeners = new ListenerWatch(listenerByPort, settings.port);
        this.nativeAvailable = TcpSockets.availability().isAvailable();
        this.connectPacer = settings.connectRate > 0
                ? new ConnectPacer(settings.connectRate, settings.connectBurst, settings.connectMaxWaitMillis, log) : null;
    }

    /** What the startup line says about connect pacing; null when it is off. */
    String connectPacing() {
        return connectPacer == null ? null : connectPacer.describe();
    }

    @Override
    public void connecting() {
        if (connectPacer != null) {
            connectPacer.pace(); // whether or not TCP_INFO is available: pacing needs no native code
        }
    }

    void start() {
        if (!nativeAvailable) {
            log.warn("tcpsight agent: no TCP_INFO: " + TcpSockets.availability().reason() + "; connections are not tracked");
            return;
        }
        monitor.addFindingSource(() -> {
            try {
                return listeners.evaluate(monitor.config());
            } catch (IOException | RuntimeException unreadable) {
                failed("listener watch", unreadable);
                return Collections.emptyList();
            }
        });
        loop = new SamplingLoop("tcpsight-agent-sampler", monitor.config(), () -> {
            forgetReleased();
            monitor.round();
        }, log::warn).start();
        try {
            jmx = TcpsightJmx.register(monitor, "BrokerAgent", "agent");
        } catch (Exception unavailable) {
            log.warn("tcpsight agent: JMX registration failed: " + unavailable);
        }
        if (settings.port > 0) {
            try {
                http = AgentHttpServer.start(settings.host, settings.port, monitor, connectPacer);
            } catch (IOException | RuntimeException bindFailed) {
                log.warn("tcpsight agent: HTTP endpoint on " + settings.host + ":" + settings.port + " not started: " + bindFailed);
            }
        }
    }

    @Override
    public void registered(Object selector, String connectionId, SocketChannel channel, long connectStartNanos) {
        if (!nativeAvailable) {
            return;
        }
        int fd;
        try {
            fd = TcpSockets.fileDescriptor(channel);
        } catch (TcpSocketException closed) {
            return;
        }
        boolean client = connectStartNanos != 0;
        InetSocketAddress local = address(channel, true);
        InetSocketAddress remote = address(channel, false);
        ConnectionIdentity identity = ConnectionIdentity.of(client ? Role.CLIENT : Role.BROKER, local, remote, Instant.now());
        if (client) {
            identity = identity.withClientId(clientIdBySelector.get(selector)).withNodeId(ClientConnectionIds.brokerNode(connectionId));
        } else if (local != null) {
            identity = identity.withListener(listenerByPort.get(local.getPort()));
        }
        TrackedConnection tracked = registry.track(fd, 0, identity).orElse(null);
        if (tracked == null) {
            return;
        }
        if (client) {
            tracked.handshakeStarted(connectStartNanos);
        } else {
            tracked.ownerKey(connectionId);
            byConnectionId.put(connectionId, tracked);
            if (settings.congestion != null) {
                setCongestion(channel);
            }
        }
    }

    /** The id tables follow the registry: a connection the sampler released (its fd went away unseen) leaves them too. */
    private void forgetReleased() {
        byConnectionId.values().removeIf(connection -> registry.get(connection.fd()).orElse(null) != connection);
        adoptedByAddresses.values().removeIf(connection -> registry.get(connection.fd()).orElse(null) != connection);
    }

    /**
     * Tracks the established connections this process already holds that no hook reported: on an
     * attach to a running JVM every existing connection predates the hooks. Accepted ones (local
     * port is one of this process's listeners) are attributed at their next request. Returns how many.
     */
    int adoptOpenConnections() throws IOException {
        if (!nativeAvailable) {
            return 0;
        }
        Set<Integer> listeningPorts = new java.util.HashSet<>();
        for (ProcessSocket listener : ProcessSocketCensus.listening()) {
            if (listener.local() != null) {
                listeningPorts.add(listener.local().getPort());
            }
        }
        int adopted = 0;
        for (ProcessSocket socket : ProcessSocketCensus.take()) {
            if (socket.state() != TcpState.ESTABLISHED || socket.local() == null || socket.remote() == null
                    || socket.local().getPort() == settings.port || registry.get(socket.fd()).isPresent()) {
                continue;
            }
            boolean accepted = listeningPorts.contains(socket.local().getPort());
            ConnectionIdentity identity = ConnectionIdentity.of(accepted ? Role.BROKER : Role.CLIENT, socket.local(), socket.remote(), Instant.now());
            TrackedConnection tracked = registry.track(socket.fd(), socket.inode(), identity).orElse(null);
            if (tracked == null) {
                continue;
            }
            adopted++;
            if (accepted) {
                adoptedByAddresses.put(addressKey(socket.local(), socket.remote()), tracked);
            }
        }
        return adopted;
    }

    /** The addresses part of Kafka's broker-side connection id ("local:port-remote:port-[processor-]index"). */
    static String addressKey(InetSocketAddress local, InetSocketAddress remote) {
        return local.getAddress().getHostAddress() + ":" + local.getPort() + "-" + remote.getAddress().getHostAddress() + ":" + remote.getPort();
    }

    /** Kafka 3.9 ends the id with "-index", 4.x with "-processor-index": the addresses come before either. */
    private TrackedConnection adopted(String connectionId) {
        TrackedConnection connection = null;
        String prefix = connectionId;
        for (int suffixes = 0; suffixes < 2 && connection == null; suffixes++) {
            int dash = prefix.lastIndexOf('-');
            if (dash < 0) {
                return null;
            }
            prefix = prefix.substring(0, dash);
            connection = adoptedByAddresses.remove(prefix);
        }
        if (connection != null) {
            connection.ownerKey(connectionId);
            byConnectionId.put(connectionId, connection);
        }
        return connection;
    }

    private void setCongestion(SocketChannel channel) {
        try {
            TcpSockets.setCongestionControl(channel, settings.congestion);
        } catch (TcpSocketException refused) {
            failed("congestion=" + settings.congestion, refused);
        }
    }

    private static InetSocketAddress address(SocketChannel channel, boolean local) {
        try {
            return (InetSocketAddress) (local ? channel.getLocalAddress() : channel.getRemoteAddress());
        } catch (IOException | RuntimeException unknown) {
            return null;
        }
    }

    @Override
    public void connected(SocketChannel channel) {
        if (!nativeAvailable) {
            return;
        }
        int fd = TcpSockets.fileDescriptor(channel);
        registry.get(fd).ifPresent(connection -> {
            connection.handshakeCompleted(System.nanoTime());
            InetSocketAddress local = address(channel, true);
            if (connection.identity().local() == null && local != null) {
                connection.updateIdentity(identity -> ConnectionIdentity.of(identity.role(), local, identity.remote(), identity.openedAt())
                        .withClientId(identity.clientId()).withNodeId(identity.nodeId()));
            }
        });
    }

    @Override
    public void closing(SocketChannel channel) {
        if (!nativeAvailable || !channel.isOpen()) {
            return;
        }
        TrackedConnection connection = registry.get(TcpSockets.fileDescriptor(channel)).orElse(null);
        if (connection != null) {
            registry.release(connection);
            if (connection.ownerKey() != null) {
                byConnectionId.remove(connection.ownerKey(), connection);
            }
        }
    }

    @Override
    public void networkClient(Object selector, String clientId) {
        if (clientId != null) {
            clientIdBySelector.put(selector, clientId);
        }
    }

    @Override
    public void request(String connectionId, Object context) {
        TrackedConnection connection = byConnectionId.get(connectionId);
        if (connection == null && !adoptedByAddresses.isEmpty()) {
            connection = adopted(connectionId);
        }
        if (connection == null || connection.identity().clientId() != null) {
            return; // not ours, or attributed already: the common case costs one map lookup
        }
        RequestFields fields = RequestFields.of(context);
        String clientId = fields.clientId(context);
        String principal = fields.principal(context);
        String listener = fields.listener(context);
        connection.updateIdentity(identity -> identity.withClientId(clientId).withPrincipal(principal).withListener(listener));
        InetSocketAddress local = connection.identity().local();
        if (listener != null && local != null && listenerByPort.size() < 64) {
            listenerByPort.putIfAbsent(local.getPort(), listener);
        }
    }

    @Override
    public void failed(String where, Throwable failure) {
        String key = where + ": " + failure.getClass().getName();
        if (reportedFailures.size() < 100 && reportedFailures.add(key)) {
            log.warn("tcpsight agent: " + where + " failed, Kafka is unaffected (reported once): " + failure);
        }
    }

    /** Reads RequestContext's public fields reflectively, once per class, so nothing here links to Kafka. */
    static final class RequestFields {
        private static volatile RequestFields cached;
        private final Class<?> type;
        private final Field header;
        private final Field principal;
        private final Field listenerName;

        private RequestFields(Class<?> type) throws ReflectiveOperationException {
            this.type = type;
            this.header = type.getField("header");
            this.principal = type.getField("principal");
            this.listenerName = type.getField("listenerName");
        }

        static RequestFields of(Object context) {
            RequestFields fields = cached;
            if (fields == null || fields.type != context.getClass()) {
                try {
                    fields = new RequestFields(context.getClass());
                } catch (ReflectiveOperationException changed) {
                    throw new IllegalStateException("RequestContext has no public header/principal/listenerName", changed);
                }
                cached = fields;
            }
            return fields;
        }

        String clientId(Object context) {
            return (String) call(get(header, context), "clientId");
        }

        String principal(Object context) {
            Object value = get(principal, context);
            return value == null ? null : value.toString();
        }

        String listener(Object context) {
            return (String) call(get(listenerName, context), "value");
        }

        private static Object get(Field field, Object target) {
            try {
                return field.get(target);
            } catch (IllegalAccessException inaccessible) {
                return null;
            }
        }

        private static Object call(Object target, String method) {
            if (target == null) {
                return null;
            }
            try {
                Method getter = target.getClass().getMethod(method);
                return getter.invoke(target);
            } catch (ReflectiveOperationException missing) {
                return null;
            }
        }
    }

    /** For tests in this package: what the registry tracks now. */
    java.util.List<TrackedConnection> tracked() {
        return registry.connections();
    }

    void close() {
        if (loop != null) {
            loop.close();
        }
        if (http != null) {
            http.close();
        }
        if (jmx != null) {
            jmx.close();
        }
    }
}
