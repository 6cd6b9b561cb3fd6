package io.tcpsight.agent.internal.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpsight.internal.config.InvalidSettingException;
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
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The endpoint's access control with real clients: curl (OpenSSL) over TLS from a PKCS12 store
 * and from PEM files made by keytool and openssl, bearer and basic auth, the allowlist, and the
 * redacted mode over a real tracked socket.
 */
class EndpointAccessTest {
    @TempDir
    Path dir;

    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final ConnectionRegistry registry = new ConnectionRegistry(10);
    private final ConnectionMonitor monitor = new ConnectionMonitor(
            registry,
            TcpsightConfig.defaults(),
            connection -> KafkaSettings.unknown(),
            () -> HostTcpFacts.current().kernelFacts(),
            new FindingsBoard(0, finding -> {}));

    private AgentHttpServer start(Map<String, String> settings) throws IOException {
        return AgentHttpServer.start(
                "127.0.0.1",
                0,
                EndpointAccess.from(settings),
                PrometheusText.of(monitor, List.of()),
                monitor,
                warnings::add);
    }

    @Test
    void tlsFromAPkcs12StoreAndFromPemFilesServesCurl() throws Exception {
        tools("keytool", "openssl", "curl");
        run(
                "keytool",
                "-genkeypair",
                "-alias",
                "tcpsight",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-ext",
                "san=ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                dir.resolve("agent.p12").toString(),
                "-storepass",
                "s3cret-store");
        run(
                "keytool",
                "-exportcert",
                "-rfc",
                "-alias",
                "tcpsight",
                "-keystore",
                dir.resolve("agent.p12").toString(),
                "-storepass",
                "s3cret-store",
                "-file",
                dir.resolve("p12-cert.pem").toString());
        Files.writeString(dir.resolve("store-password"), "s3cret-store\n");
        try (AgentHttpServer server = start(Map.of(
                EndpointAccess.TLS_KEYSTORE, dir.resolve("agent.p12").toString(),
                EndpointAccess.TLS_KEYSTORE_PASSWORD_FILE,
                        dir.resolve("store-password").toString()))) {
            String metrics = curl(
                    "--cacert",
                    dir.resolve("p12-cert.pem").toString(),
                    "https://127.0.0.1:" + server.port() + "/metrics");
            assertTrue(metrics.startsWith("200 "), metrics);
            assertTrue(metrics.contains("tcpsight_"), metrics);
            assertFalse(curl("http://127.0.0.1:" + server.port() + "/metrics").startsWith("200 "), "no plain HTTP");
        }
        run(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                dir.resolve("key.pem").toString(),
                "-out",
                dir.resolve("cert.pem").toString(),
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
                "-days",
                "2");
        try (AgentHttpServer server = start(Map.of(
                EndpointAccess.TLS_CERT, dir.resolve("cert.pem").toString(),
                EndpointAccess.TLS_KEY, dir.resolve("key.pem").toString()))) {
            assertTrue(server.maxConnections() <= AgentHttpServer.MAX_TLS_CONNECTIONS, "fewer connections under TLS");
            // A client that opens the TCP connection and never starts its handshake holds no one up.
            try (Socket stalled = new Socket(InetAddress.getLoopbackAddress(), server.port());
                    Socket garbage = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                garbage.getOutputStream().write("GET /metrics HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                for (String path : new String[] {"/findings", "/connections?top=5", "/nowhere"}) {
                    String answer = curl(
                            "--cacert",
                            dir.resolve("cert.pem").toString(),
                            "https://127.0.0.1:" + server.port() + path);
                    assertTrue(answer.startsWith(path.equals("/nowhere") ? "404 " : "200 "), path + ": " + answer);
                }
                assertTrue(stalled.isConnected());
            }
        }
    }

    @Test
    void aBearerTokenOrBasicAuthIsAskedForAndCheckedWithCurl() throws Exception {
        tools("curl");
        Files.writeString(dir.resolve("token"), "t0ken-from-a-file\n");
        try (AgentHttpServer server = start(
                Map.of(EndpointAccess.AUTH_TOKEN_FILE, dir.resolve("token").toString()))) {
            String url = "http://127.0.0.1:" + server.port() + "/metrics";
            String refused = curl("-D", "-", "-o", "/dev/null", url);
            assertTrue(refused.startsWith("401 "), refused);
            assertTrue(refused.contains("WWW-Authenticate: Bearer realm=\"tcpsight\""), refused);
            assertTrue(curl("-H", "Authorization: Bearer t0ken-from-a-fil", url).startsWith("401 "));
            assertTrue(
                    curl("-H", "Authorization: Bearer t0ken-from-a-file", url).startsWith("200 "));
        }
        Files.writeString(dir.resolve("basic"), "prometheus:scrape-me\n");
        try (AgentHttpServer server = start(
                Map.of(EndpointAccess.AUTH_BASIC_FILE, dir.resolve("basic").toString()))) {
            String url = "http://127.0.0.1:" + server.port() + "/findings";
            assertTrue(curl("-u", "prometheus:wrong", url).startsWith("401 "));
            assertTrue(curl("-u", "prometheus:scrape-me", url).startsWith("200 "));
        }
    }

    @Test
    void anAddressOutsideTheAllowlistIsClosedUnansweredAndLoggedOnce() throws Exception {
        try (AgentHttpServer server = start(Map.of(EndpointAccess.ALLOW, "10.0.0.0/8;192.168.1.7"))) {
            for (int i = 0; i < 3; i++) {
                assertEquals("", exchange(server.port()), "closed without an answer");
            }
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("http.allow"), warnings.toString());
        }
        try (AgentHttpServer server = start(Map.of(EndpointAccess.ALLOW, "10.0.0.0/8; 127.0.0.0/8"))) {
            assertTrue(exchange(server.port()).startsWith("HTTP/1.1 200"));
        }
        EndpointAccess v6 = EndpointAccess.from(Map.of(EndpointAccess.ALLOW, "2001:db8::/32"));
        assertTrue(v6.allows(InetAddress.getByName("2001:db8:1::5")));
        assertFalse(v6.allows(InetAddress.getByName("2001:db9::5")));
        EndpointAccess v4 = EndpointAccess.from(Map.of(EndpointAccess.ALLOW, "10.1.0.0/16"));
        assertTrue(v4.allows(InetAddress.getByName("::ffff:10.1.2.3")), "a v4-mapped peer");
        assertFalse(v4.allows(InetAddress.getByName("10.2.0.1")));
    }

    @Test
    void theRedactedModeLeavesPrincipalsAndAddressesOutOfConnections() throws Exception {
        assumeTrue(
                TcpSockets.availability().isAvailable(), // in CI a failure (NoSkipsInCi)
                "no native library here: " + TcpSockets.availability().reason());
        try (ServerSocketChannel listener =
                        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel accepted = listener.accept()) {
            int fd = TcpSockets.fileDescriptor(accepted);
            ConnectionIdentity identity = ConnectionIdentity.of(
                            Role.BROKER, (InetSocketAddress) accepted.getLocalAddress(), (InetSocketAddress)
                                    accepted.getRemoteAddress())
                    .withClientId("orders-consumer")
                    .withPrincipal("User:alice")
                    .ownerKnownBy(OwnerKnownBy.HOOKS);
            registry.track(fd, TcpSockets.socketInode(fd).orElse(0), identity).orElseThrow();
            monitor.round();
            try (AgentHttpServer plain = start(Map.of())) {
                String answer = exchange(plain.port(), "/connections");
                assertTrue(answer.contains("User:alice") && answer.contains("127.0.0.1"), answer);
            }
            try (AgentHttpServer redacted = start(Map.of(EndpointAccess.REDACT, "true"))) {
                String answer = exchange(redacted.port(), "/connections");
                assertTrue(answer.contains("\"clientId\":\"orders-consumer\""), answer);
                assertFalse(answer.contains("alice") || answer.contains("127.0.0.1"), answer);
                assertTrue(exchange(redacted.port(), "/findings").startsWith("HTTP/1.1 200"));
            }
        }
    }

    @Test
    void badAccessSettingsNameTheKeyAndNeverTheSecret() throws IOException {
        Files.writeString(dir.resolve("token"), "the-secret-token\n");
        Files.writeString(dir.resolve("empty"), "\n");
        Files.writeString(
                dir.resolve("pkcs1.pem"), "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n");
        Files.writeString(dir.resolve("cert.pem"), "not a certificate\n");
        List<String[]> cases = new ArrayList<>();
        cases.add(new String[] {EndpointAccess.ALLOW, "10.0.0.0/33", "a prefix length from 0 to 32"});
        cases.add(new String[] {EndpointAccess.ALLOW, "kafka.example.com", "IP addresses or CIDR ranges"});
        cases.add(new String[] {EndpointAccess.REDACT, "yes", "true or false"});
        cases.add(new String[] {
            EndpointAccess.AUTH_TOKEN_FILE, dir.resolve("empty").toString(), "first line is empty"
        });
        cases.add(new String[] {
            EndpointAccess.AUTH_TOKEN_FILE, dir.resolve("nowhere").toString(), "NoSuchFile"
        });
        cases.add(new String[] {
            EndpointAccess.AUTH_BASIC_FILE, dir.resolve("token").toString(), "no colon"
        });
        cases.add(new String[] {
            EndpointAccess.TLS_KEYSTORE_PASSWORD_FILE,
            dir.resolve("token").toString(),
            "only with " + EndpointAccess.TLS_KEYSTORE
        });
        cases.add(
                new String[] {EndpointAccess.TLS_KEYSTORE, dir.resolve("token").toString(), "a PKCS12 key store"});
        for (String[] bad : cases) {
            InvalidSettingException refused =
                    assertThrows(InvalidSettingException.class, () -> EndpointAccess.from(Map.of(bad[0], bad[1])));
            assertTrue(refused.getMessage().contains(bad[0]), refused.getMessage());
            assertTrue(refused.getMessage().contains(bad[2]), refused.getMessage());
            assertFalse(refused.getMessage().contains("the-secret-token"), refused.getMessage());
        }
        Map<String, String> pem = new HashMap<>();
        pem.put(EndpointAccess.TLS_CERT, dir.resolve("cert.pem").toString());
        pem.put(EndpointAccess.TLS_KEY, dir.resolve("pkcs1.pem").toString());
        InvalidSettingException pkcs1 = assertThrows(InvalidSettingException.class, () -> EndpointAccess.from(pem));
        assertTrue(pkcs1.getMessage().contains("openssl pkcs8 -topk8 -nocrypt"), pkcs1.getMessage());
        Map<String, String> both = new HashMap<>();
        both.put(EndpointAccess.AUTH_TOKEN_FILE, dir.resolve("token").toString());
        both.put(EndpointAccess.AUTH_BASIC_FILE, dir.resolve("token").toString());
        assertTrue(assertThrows(InvalidSettingException.class, () -> EndpointAccess.from(both))
                .getMessage()
                .contains("not both"));
    }

    private static void tools(String... names) {
        for (String name : names) {
            boolean found = false;
            for (String directory : System.getenv("PATH").split(":")) {
                found |= Files.isExecutable(Path.of(directory, name));
            }
            assumeTrue(found, name + " is not installed"); // in CI a failure (NoSkipsInCi)
        }
    }

    /** curl's status code, a space, then what it printed (the body, or the head with -D -). */
    private static String curl(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10", "-w", "\n%{http_code}"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(20, TimeUnit.SECONDS), String.join(" ", command));
        int newline = output.lastIndexOf('\n');
        return output.substring(newline + 1) + " " + output.substring(0, Math.max(0, newline));
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command));
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + output);
    }

    private static String exchange(int port) throws IOException {
        return exchange(port, "/metrics");
    }

    /** The whole answer to a plain GET, or "" when the endpoint closed without one. */
    private static String exchange(int port, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException closed) {
                return "";
            }
            InputStream in = socket.getInputStream();
            try {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException reset) {
                return "";
            }
        }
    }
}
