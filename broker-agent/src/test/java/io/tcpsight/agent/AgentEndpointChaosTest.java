package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpsight.internal.tcp.TcpSockets;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's real endpoint on loopback against clients that misbehave: half-sent requests
 * (slowloris), clients that never read their answer, a thousand requests at once, and methods
 * other than GET. Through all of it a well-behaved scrape of /metrics must be answered within 1 s.
 * The figures are printed for docs/benchmarks.md.
 */
class AgentEndpointChaosTest {
    private static final long PROBE_LIMIT_MILLIS = 1000;

    private AgentAssembly runtime;
    private int port;

    @BeforeEach
    void startAgent() throws IOException {
        assumeTrue(
                TcpSockets.availability().isAvailable(), // in CI a failure (NoSkipsInCi)
                "no native library here: " + TcpSockets.availability().reason());
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        runtime = new AgentAssembly(AgentSettings.parse("port=" + port + ",interval=1s"), AgentLog.create());
        runtime.start(AgentLog.create());
        assertEquals(200, get("/metrics").status, "the endpoint answers before the chaos starts");
    }

    @AfterEach
    void stopAgent() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void halfSentRequestsBeyondTheConnectionLimitDoNotStallAScrape() throws Exception {
        long worst = worstProbeWhileHolding(
                1200, "GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        System.out.printf("slowloris: 1200 half-sent requests held, worst /metrics of 20 probes %d ms%n", worst);
        assertTrue(worst < PROBE_LIMIT_MILLIS, "worst probe " + worst + " ms");
    }

    /** Below the connection cap nothing evicts it: the head deadline (5 s) must close it. */
    @Test
    void aHalfSentRequestIsClosedByTheServerAtItsHeadDeadline() throws Exception {
        try (Socket slow = connect()) {
            slow.getOutputStream().write("GET /metrics HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            slow.setSoTimeout(15_000);
            long start = System.nanoTime();
            assertEquals(-1, slow.getInputStream().read(), "closed by the server, nothing answered");
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("a half-sent request was closed after %d ms%n", millis);
            assertTrue(millis >= 4_000, "not before its deadline: " + millis + " ms");
        }
    }

    @Test
    void clientsThatNeverReadDoNotStallAScrape() throws Exception {
        long worst = worstProbeWhileHolding(300, request("GET", "/metrics"));
        System.out.printf("non-reading: 300 clients hold unread /metrics answers, worst probe %d ms%n", worst);
        assertTrue(worst < PROBE_LIMIT_MILLIS, "worst probe " + worst + " ms");
    }

    @Test
    void aThousandConcurrentRequestsLeaveAScrapeFast() throws Exception {
        ExecutorService flood = Executors.newFixedThreadPool(100);
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        try {
            List<Future<?>> requests = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                String path = i % 3 == 0 ? "/metrics" : i % 3 == 1 ? "/findings" : "/connections?top=5";
                requests.add(flood.submit(() -> {
                    try {
                        int status = get(path).status;
                        (status == 200 ? answered : refused).incrementAndGet();
                    } catch (IOException closed) {
                        refused.incrementAndGet();
                    }
                    return null;
                }));
            }
            long worst = worstOfProbes(20);
            for (Future<?> request : requests) {
                request.get(60, TimeUnit.SECONDS);
            }
            System.out.printf(
                    "flood: 1000 requests from 100 threads, %d answered 200, %d refused or busy; worst probe %d ms%n",
                    answered.get(), refused.get(), worst);
            assertTrue(worst < PROBE_LIMIT_MILLIS, "worst probe " + worst + " ms");
            assertEquals(1000, answered.get() + refused.get());
        } finally {
            flood.shutdownNow();
        }
    }

    @Test
    void otherMethodsGetACheap405AndBadInputIsNotEchoed() throws IOException {
        for (String method : List.of("POST", "PUT", "DELETE")) {
            Answer answer = send(request(method, "/metrics"));
            assertEquals(405, answer.status, method);
            assertTrue(answer.text.contains("Allow: GET, HEAD"), answer.text);
        }
        Answer bad = get("/connections?top=%3Cscript%3E");
        assertEquals(400, bad.status);
        assertTrue(!bad.text.contains("script"), "the bad value is not repeated: " + bad.text);
        assertEquals(404, get("/nothing").status);
        byte[] huge = ("GET /metrics HTTP/1.1\r\nX-Filler: " + "x".repeat(9000) + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        assertEquals(431, send(huge).status);
    }

    /** Holds this many connections that sent these bytes and never read, while 20 scrapes are timed. */
    private long worstProbeWhileHolding(int count, byte[] sent) throws IOException {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                Socket socket = new Socket();
                held.add(socket);
                socket.setReceiveBufferSize(4096); // before connect, so the answer backs up at the server
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                socket.getOutputStream().write(sent);
            }
            return worstOfProbes(20);
        } finally {
            closeAll(held);
        }
    }

    private long worstOfProbes(int count) throws IOException {
        long worst = 0;
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            Answer answer = get("/metrics");
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, answer.status, answer.text);
            assertTrue(answer.text.contains("tcpsight_"), "a real scrape");
            worst = Math.max(worst, millis);
        }
        return worst;
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
        return socket;
    }

    private static byte[] request(String method, String path) {
        return (method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    private Answer get(String path) throws IOException {
        return send(request("GET", path));
    }

    private Answer send(byte[] request) throws IOException {
        try (Socket socket = connect()) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!text.startsWith("HTTP/1.1 ")) {
                throw new IOException("no answer, connection closed: '" + text + "'");
            }
            return new Answer(Integer.parseInt(text.substring(9, 12)), text);
        }
    }

    private static void closeAll(List<Socket> sockets) {
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // the test is over
            }
        }
    }

    private static final class Answer {
        final int status;
        final String text;

        Answer(int status, String text) {
            this.status = status;
            this.text = text;
        }
    }
}
