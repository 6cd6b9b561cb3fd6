package io.tcpsight.doctor.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.tcpsight.doctor.SilentListener;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.finding.FindingJson;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet's reading over real sockets on loopback: an HTTP server that answers as an agent does
 * (its findings in the shared format, 401 without the token), one that accepts and never answers,
 * and a port nobody listens on. The JDK's HTTP server stands in for the agent's transport here; the
 * lab reads real agents.
 */
class FleetReaderTest {
    private static final String TOKEN = "s3cret-token-value";
    private static final String FINDINGS = FindingJson.array(
            Diagnosis.connection(RuleFacts.smallBufferConsumer(100).build(), TcpsightConfig.defaults()));

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable one : opened) {
            one.close();
        }
    }

    /** Answers /findings with {@code body} to a request with the bearer token, 401 to any other. */
    private URI agent(String body) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/findings", exchange -> {
            boolean allowed =
                    ("Bearer " + TOKEN).equals(exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] answer = (allowed ? body : "unauthorized").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(allowed ? 200 : 401, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        opened.add(() -> server.stop(0));
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private Path tokenFile(Path directory, String token) throws IOException {
        return Files.writeString(directory.resolve("token"), token + "\n");
    }

    /** One broker's answer, read with the token within this timeout. */
    private FleetAnswer readBroker(Path directory, Duration timeout, URI broker) throws Exception {
        return FleetReader.of(timeout, Optional.empty(), Optional.of(tokenFile(directory, TOKEN)), Optional.empty())
                .read(List.of(FleetSource.broker(1, broker)))
                .get(0);
    }

    @Test
    void eachAgentIsReadWithTheTokenAndOneThatIsNotThereOrSilentDoesNotHoldTheOthers(@TempDir Path directory)
            throws Exception {
        URI answering = agent(FINDINGS);
        SilentListener silent = new SilentListener(); // accepts, never answers
        opened.add(silent);
        int nobody;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = free.getLocalPort();
        }
        FleetReader reader = FleetReader.of(
                Duration.ofMillis(1500), Optional.empty(), Optional.of(tokenFile(directory, TOKEN)), Optional.empty());
        List<FleetAnswer> answers = reader.read(List.of(
                FleetSource.broker(1, answering),
                FleetSource.broker(2, URI.create("http://127.0.0.1:" + silent.port())),
                FleetSource.broker(3, URI.create("http://127.0.0.1:" + nobody))));
        assertTrue(answers.get(0).answered(), answers.get(0).failure().orElse(""));
        assertEquals(
                FleetFinding.parse(FINDINGS).size(), answers.get(0).findings().size());
        assertFalse(answers.get(0).findings().isEmpty());
        assertEquals(Optional.of("no answer within the timeout"), answers.get(1).failure());
        assertEquals(
                Optional.of("connection refused (no agent listening there?)"),
                answers.get(2).failure());
    }

    /**
     * Answers /findings with its status line at once and the findings {@code bodyAfterMillis} later,
     * or never where that is negative (until the test ends: the latch is released before the server
     * stops, which waits for its one dispatcher thread).
     */
    private URI answeringLate(long bodyAfterMillis) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        CountDownLatch released = new CountDownLatch(1);
        byte[] body = FINDINGS.getBytes(StandardCharsets.UTF_8);
        server.createContext("/findings", exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().flush();
            try {
                if (bodyAfterMillis < 0) {
                    released.await(60, TimeUnit.SECONDS);
                } else {
                    Thread.sleep(bodyAfterMillis);
                    exchange.getResponseBody().write(body);
                }
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        server.start();
        opened.add(released::countDown);
        opened.add(() -> server.stop(0));
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /**
     * A source whose status line came but whose findings never did answered: it is never said not to
     * have, and it is given up once the timeout for its answer and the timeout again for its findings
     * (and the wait's 1 s margin) have passed, not before and not long after.
     */
    @Test
    void aSourceThatAnsweredButWhoseFindingsWereNotReadIsNeverSaidNotToHaveAnswered(@TempDir Path directory)
            throws Exception {
        URI stalls = answeringLate(-1);
        FleetReader reader = FleetReader.of(
                Duration.ofMillis(1000), Optional.empty(), Optional.of(tokenFile(directory, TOKEN)), Optional.empty());
        long started = System.nanoTime();
        FleetAnswer answer = reader.read(List.of(FleetSource.broker(1, stalls))).get(0);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        String failure = answer.failure().orElseThrow();
        Matcher said = Pattern.compile(
                        "answered after (\\d+) ms, but its findings were not read in the (\\d+) ms after")
                .matcher(failure);
        assertTrue(said.matches(), failure);
        assertTrue(Long.parseLong(said.group(1)) < 1000, failure);
        assertTrue(Long.parseLong(said.group(1)) + Long.parseLong(said.group(2)) >= 2900, failure);
        assertTrue(tookMillis >= 3000 && tookMillis < 8000, "gave up after " + tookMillis + " ms: " + failure);
    }

    /** Findings that come after the timeout for the answer, within the timeout again, are read. */
    @Test
    void findingsThatComeWithinTheTimeoutAfterTheAnswerAreRead(@TempDir Path directory) throws Exception {
        FleetAnswer answer = readBroker(directory, Duration.ofMillis(2000), answeringLate(3500));
        assertTrue(answer.answered(), answer.failure().orElse(""));
        assertEquals(FleetFinding.parse(FINDINGS).size(), answer.findings().size());
    }

    @Test
    void aWrongTokenIsRefusedAndTheReasonNeverCarriesIt(@TempDir Path directory) throws Exception {
        URI answering = agent(FINDINGS);
        FleetReader wrong = FleetReader.of(
                Duration.ofSeconds(5),
                Optional.empty(),
                Optional.of(tokenFile(directory, "not-the-token")),
                Optional.empty());
        FleetAnswer answer =
                wrong.read(List.of(FleetSource.broker(1, answering))).get(0);
        String reason = answer.failure().orElseThrow();
        assertTrue(reason.startsWith("HTTP 401: the agent asks for credentials"), reason);
        assertFalse(reason.contains("not-the-token"), reason);
        FleetReader none = FleetReader.of(Duration.ofSeconds(5), Optional.empty(), Optional.empty(), Optional.empty());
        assertTrue(none.read(List.of(FleetSource.broker(1, answering)))
                .get(0)
                .failure()
                .orElseThrow()
                .startsWith("HTTP 401"));
    }

    /** The agents' credential goes to the agents only: a worker's REST never sees it. */
    @Test
    void theTokenGoesToTheAgentsAndNeverToAWorker(@TempDir Path directory) throws Exception {
        List<String> heard = new ArrayList<>();
        HttpServer worker = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        worker.createContext("/tcpsight/findings", exchange -> {
            synchronized (heard) {
                heard.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            }
            byte[] answer = FINDINGS.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        worker.start();
        opened.add(() -> worker.stop(0));
        URI agent = agent(FINDINGS);
        List<FleetAnswer> answers = FleetReader.of(
                        Duration.ofSeconds(5),
                        Optional.empty(),
                        Optional.of(tokenFile(directory, TOKEN)),
                        Optional.empty())
                .read(List.of(
                        FleetSource.broker(1, agent),
                        FleetSource.worker(URI.create(
                                "http://127.0.0.1:" + worker.getAddress().getPort()))));
        assertTrue(
                answers.get(0).answered(),
                "the agent took the token: " + answers.get(0).failure());
        assertTrue(answers.get(1).answered(), answers.get(1).failure().orElse(""));
        assertEquals(List.of("null"), heard, "what the worker was sent as Authorization");
    }

    @Test
    void aCredentialAHeaderCannotCarryIsRefusedWithoutRepeatingIt(@TempDir Path directory) throws Exception {
        Path token = Files.writeString(directory.resolve("token"), "s3cr\u00e9t\n");
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> FleetReader.of(Duration.ofSeconds(1), Optional.empty(), Optional.of(token), Optional.empty()));
        assertEquals(
                "--agent-token-file: " + token
                        + "'s first line has a character a header cannot carry; allowed: visible ASCII and spaces",
                refused.getMessage());
    }

    @Test
    void anAnswerThatIsNotFindingsIsThatSourcesFailure(@TempDir Path directory) throws Exception {
        FleetAnswer answer = readBroker(directory, Duration.ofSeconds(5), agent("<html>a proxy's login page</html>"));
        assertTrue(
                answer.failure().orElseThrow().startsWith("the answer is not JSON"),
                answer.failure().orElseThrow());
    }

    @Test
    void badCredentialFilesAreNamedNeverTheirContent(@TempDir Path directory) throws Exception {
        Path missing = directory.resolve("absent");
        IllegalArgumentException unreadable = assertThrows(
                IllegalArgumentException.class,
                () -> FleetReader.of(Duration.ofSeconds(1), Optional.empty(), Optional.of(missing), Optional.empty()));
        assertTrue(
                unreadable.getMessage().startsWith("--agent-token-file: " + missing + " cannot be read"),
                unreadable.getMessage());
        Path empty = Files.writeString(directory.resolve("empty"), "\n");
        assertEquals(
                "--agent-token-file: " + empty + " has an empty first line",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> FleetReader.of(
                                        Duration.ofSeconds(1), Optional.empty(), Optional.of(empty), Optional.empty()))
                        .getMessage());
        Path notPem = Files.writeString(directory.resolve("ca.pem"), "secret-looking text\n");
        IllegalArgumentException ca = assertThrows(
                IllegalArgumentException.class,
                () -> FleetReader.of(Duration.ofSeconds(1), Optional.of(notPem), Optional.empty(), Optional.empty()));
        assertTrue(ca.getMessage().startsWith("--agent-ca-file: " + notPem), ca.getMessage());
        assertFalse(ca.getMessage().contains("secret-looking"), ca.getMessage());
        Path token = tokenFile(directory, TOKEN);
        assertEquals(
                "--agent-token-file and --agent-basic-auth-file: give one of them, not both",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> FleetReader.of(
                                        Duration.ofSeconds(1),
                                        Optional.empty(),
                                        Optional.of(token),
                                        Optional.of(token)))
                        .getMessage());
    }
}
