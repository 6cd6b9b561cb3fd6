package io.tcpsight.agent.internal.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.tcp.TcpSockets;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The endpoint itself, on loopback: failures of its own and of its renders, and what HTTP it speaks. */
class AgentHttpServerTest {
    private final List<String> warnings = new CopyOnWriteArrayList<>();

    private static ConnectionMonitor monitor() {
        return new ConnectionMonitor(
                new ConnectionRegistry(10),
                TcpsightConfig.defaults(),
                connection -> KafkaSettings.unknown(),
                () -> HostTcpFacts.current().kernelFacts(),
                new FindingsBoard(0, finding -> {}));
    }

    private AgentHttpServer start(List<MeterBinder> meters) throws IOException {
        ConnectionMonitor monitor = monitor();
        return AgentHttpServer.start(
                "127.0.0.1", 0, EndpointAccess.OPEN, PrometheusText.of(monitor, meters), monitor, warnings::add);
    }

    @Test
    void aRenderThatThrowsAnErrorAnswers500AndTheNextRequestRendersAgain() throws Exception {
        AtomicInteger scrapes = new AtomicInteger();
        // a meter whose measurements fail while the registry renders them, as a full heap fails an allocation
        Iterable<Measurement> failingOnce = () -> {
            if (scrapes.incrementAndGet() == 1) {
                throw new OutOfMemoryError("a render's Error");
            }
            return List.of(new Measurement(() -> 1.0, Statistic.VALUE)).iterator();
        };
        MeterBinder meter = registry -> Meter.builder("tcpsight.test.meter", Meter.Type.GAUGE, failingOnce)
                .register(registry);
        try (AgentHttpServer server = start(List.of(meter))) {
            assertEquals(500, get(server.port(), "GET /metrics").status, "the failed render");
            String again = get(server.port(), "GET /metrics").text;
            assertTrue(again.startsWith("HTTP/1.1 200"), again);
            assertTrue(again.contains("tcpsight_test_meter"), again);
        }
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("/metrics could not be rendered"), warnings.toString());
        assertTrue(warnings.get(0).contains("a render's Error"), warnings.toString());
    }

    /**
     * An answer larger than the socket takes at once goes out over several writes. It was cut after
     * the first one: the end was judged by the last part alone, a whole answer's empty tail.
     */
    @Test
    void aLargeAnswerToASlowReaderArrivesWhole() throws Exception {
        MeterBinder many = registry -> {
            for (int i = 0; i < 60_000; i++) {
                registry.gauge("tcpsight.test.gauge." + i, i);
            }
        };
        try (AgentHttpServer server = start(List.of(many));
                Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 2000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int bodyStart = text.indexOf("\r\n\r\n") + 4;
            String length = text.substring(
                    text.indexOf("Content-Length: ") + 16, text.indexOf("\r\n", text.indexOf("Content-Length: ")));
            assertTrue(
                    Integer.parseInt(length) > 4_194_304,
                    "an answer larger than the socket can hold (tcp_wmem max): " + length);
            assertEquals(Integer.parseInt(length), text.getBytes(StandardCharsets.UTF_8).length - bodyStart);
        }
    }

    @Test
    void headIsAnsweredWithTheHeadAloneAndABadRequestLineWith400() throws Exception {
        try (AgentHttpServer server = start(List.of())) {
            Answer head = get(server.port(), "HEAD /findings");
            assertEquals(200, head.status);
            assertTrue(head.text.contains("Content-Length: 2\r\n"), head.text);
            assertTrue(head.text.endsWith("\r\n\r\n"), "no body: " + head.text);
            Answer post = get(server.port(), "POST /findings");
            assertEquals(405, post.status);
            assertTrue(post.text.contains("Allow: GET, HEAD"), post.text);
            assertEquals(400, send(server.port(), "this is not http\r\n\r\n").status);
        }
    }

    /**
     * A real loopback connection to a listener, sampled by one round: /connections shows it with the
     * broker's settings that apply to it, and a client connection of this JVM without them.
     */
    @Test
    void connectionsShowTheBrokersOwnSettingsWhereTheyApply() throws Exception {
        assumeTrue(
                TcpSockets.availability().isAvailable(), // in CI a failure (NoSkipsInCi)
                TcpSockets.availability().reason());
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = new ConnectionMonitor(
                registry,
                TcpsightConfig.defaults(),
                connection -> KafkaSettings.unknown(),
                () -> HostTcpFacts.current().kernelFacts(),
                new FindingsBoard(0, finding -> {}));
        String settings =
                "{\"source\":\"server.properties\",\"socket.send.buffer.bytes\":{\"value\":-1,\"default\":false}}";
        try (ServerSocketChannel listener =
                        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel accepted = listener.accept();
                AgentHttpServer server = AgentHttpServer.start(
                        "127.0.0.1",
                        0,
                        EndpointAccess.OPEN,
                        PrometheusText.of(monitor, List.of()),
                        monitor,
                        identity -> identity.role() == Role.BROKER ? settings : "",
                        warnings::add)) {
            track(registry, accepted, Role.BROKER);
            track(registry, client, Role.CLIENT);
            monitor.round();
            String body = get(server.port(), "GET /connections").text;
            body = body.substring(body.indexOf("\r\n\r\n") + 4);
            assertEquals(2, body.split("\"ownerKnownBy\"").length - 1, body);
            assertEquals(1, body.split("\"brokerSettings\":").length - 1, "the broker's end only: " + body);
            assertTrue(body.contains("\"role\":\"broker\""), body);
            assertTrue(body.contains(",\"brokerSettings\":" + settings + "}"), body);
            // on the broker's own object: after its role, and before the client's object where that follows
            int brokerAt = body.indexOf("\"role\":\"broker\"");
            int clientAt = body.indexOf("\"role\":\"client\"");
            int shown = body.indexOf("\"brokerSettings\":");
            assertTrue(shown > brokerAt && (clientAt < brokerAt || shown < clientAt), "on the broker's end: " + body);
        }
    }

    private static void track(ConnectionRegistry registry, SocketChannel channel, Role role) throws IOException {
        int fd = TcpSockets.fileDescriptor(channel);
        registry.track(
                fd,
                TcpSockets.socketInode(fd).orElseThrow(),
                ConnectionIdentity.of(role, (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress)
                                channel.getRemoteAddress())
                        .withClientId("consumer-g-1")
                        .ownerKnownBy(OwnerKnownBy.HOOKS));
    }

    @Test
    void topIsPercentDecodedAndAnsweredFromTheSharedRender() throws Exception {
        try (AgentHttpServer server = start(List.of())) {
            Answer five = get(server.port(), "GET /connections?top=%35");
            assertEquals(200, five.status, five.text);
            assertTrue(five.text.endsWith("[]"), five.text);
            assertEquals(400, get(server.port(), "GET /connections?top=%").status);
            assertEquals(400, get(server.port(), "GET /connections?top=%31%30%30%31").status, "1001");
        }
    }

    @Test
    void theConnectionCapIsAShareOfTheOpenFileLimit() {
        assertEquals(AgentHttpServer.MAX_CONNECTIONS, AgentHttpServer.connectionCap(-1));
        assertEquals(AgentHttpServer.MAX_CONNECTIONS, AgentHttpServer.connectionCap(1_048_576));
        assertEquals(256, AgentHttpServer.connectionCap(4096));
        assertEquals(AgentHttpServer.MIN_CONNECTIONS, AgentHttpServer.connectionCap(64));
        long limit = AgentHttpServer.openFileLimit();
        assertTrue(limit == -1 || limit > 0, "read from /proc/self/limits: " + limit);
    }

    /**
     * The process at its open-file limit: accepts fail (EMFILE) while other processes keep connecting.
     * The listener must stay open and answer again once descriptors are free; before, it closed for
     * good. The limit is lowered with prlimit on this JVM for about a second.
     */
    @Test
    void anAcceptThatFailsAtTheOpenFileLimitPausesAndTheEndpointAnswersAgain() throws Exception {
        assumeTrue(
                Files.isExecutable(Paths.get("/usr/bin/prlimit")), // in CI a failure (NoSkipsInCi)
                "prlimit (util-linux) is not installed");
        try (AgentHttpServer server = start(List.of())) {
            long pid = ProcessHandle.current().pid();
            long open;
            try (Stream<?> fds = Files.list(Paths.get("/proc/self/fd"))) {
                open = fds.count();
            }
            String limits = AgentHttpServer.openFileLimit() + ":" + hardLimit();
            String squeezed = (open + 2) + ":" + hardLimit();
            // One script does it all: with the limit lowered this JVM could not even start a process.
            run(
                    "bash",
                    "-c",
                    "prlimit --pid " + pid + " --nofile=" + squeezed
                            + "; for i in 1 2 3 4 5 6 7 8; do (exec 3<>/dev/tcp/127.0.0.1/" + server.port()
                            + "; sleep 1) & done; sleep 0.5; prlimit --pid " + pid + " --nofile=" + limits + "; wait");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            Answer answer = null;
            while (System.nanoTime() < deadline) {
                try {
                    answer = get(server.port(), "GET /metrics");
                    break;
                } catch (IOException refused) {
                    Thread.sleep(100);
                }
            }
            assertTrue(answer != null && answer.status == 200, "answers again: " + answer);
            assertTrue(
                    warnings.stream().anyMatch(line -> line.contains("could not accept")),
                    "one line says why: " + warnings);
        }
    }

    private static String hardLimit() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                return line.substring("Max open files".length()).trim().split("\\s+")[1];
            }
        }
        return "unlimited";
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), String.join(" ", command));
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + output);
    }

    private static Answer get(int port, String requestLine) throws IOException {
        return send(port, requestLine + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
    }

    private static Answer send(int port, String request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!text.startsWith("HTTP/1.1 ")) {
                throw new IOException("no answer: '" + text + "'");
            }
            return new Answer(Integer.parseInt(text.substring(9, 12)), text);
        }
    }

    private static final class Answer {
        final int status;
        final String text;

        Answer(int status, String text) {
            this.status = status;
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
