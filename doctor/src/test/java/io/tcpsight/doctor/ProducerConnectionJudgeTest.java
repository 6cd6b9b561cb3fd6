package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.testing.NativeLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;

/**
 * The write probe's producer keeps its bootstrap connection beside its connection to the same
 * broker; the broker's counts (its own metrics) are judged on the socket that carried at least half
 * of them in the interval, as the monitor's own round sees it, over real loopback sockets and the
 * client's metrics as Kafka's own registry holds them.
 */
class ProducerConnectionJudgeTest {
    private static final int MIB = 1 << 20;

    @Test
    void aBrokersCountsAreJudgedOnTheSocketThatCarriedThemNotOnOneThatSharesItsAddress() throws Exception {
        // a metadata request on the bootstrap connection, the records on the broker's
        assertEquals(List.of(false, true), attributedAfterSending(100, MIB));
    }

    @Test
    void ofTwoSocketsThatBothCarriedPartOnlyTheOneWithHalfOrMoreGetsTheCounts() throws Exception {
        assertEquals(List.of(false, true), attributedAfterSending(3 * MIB / 10, 7 * MIB / 10));
    }

    @Test
    void countsNoSocketCarriedAreJudgedOnNone() throws Exception {
        assertEquals(List.of(false, false), attributedWithCounts(0, 0, MIB));
    }

    @Test
    void aBrokerSentNothingToIsJudgedOnNoSocket() throws Exception {
        // no request, no byte: idle sockets do not "carry" an empty count
        assertEquals(List.of(false, false), attributedWithCounts(0, 0, 0));
    }

    private static List<Boolean> attributedAfterSending(int... bytesPerSocket) throws Exception {
        return attributedAfterSending(bytesPerSocket, sum(bytesPerSocket));
    }

    private static List<Boolean> attributedWithCounts(int first, int second, int counted) throws Exception {
        return attributedAfterSending(new int[] {first, second}, counted);
    }

    /**
     * Two sockets to one "broker" (node 1), a round, each sending its bytes while the producer's
     * counts say {@code counted} bytes went to node 1, then the round that judges: for each socket
     * in order, whether the monitor's round judged it with node 1's counts.
     */
    private static List<Boolean> attributedAfterSending(int[] bytesPerSocket, int counted) throws Exception {
        NativeLibrary.assumeLoaded();
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
                Metrics metrics = new Metrics()) {
            List<Socket> clients = new ArrayList<>();
            List<Socket> peers = new ArrayList<>();
            try {
                for (int i = 0; i < bytesPerSocket.length; i++) {
                    clients.add(new Socket(server.getInetAddress(), server.getLocalPort()));
                    peers.add(server.accept());
                }
                AtomicLong requests = new AtomicLong(3);
                AtomicLong bytes = new AtomicLong(300);
                Map<String, String> node = Map.of("node-id", "node-1");
                metrics.addMetric(
                        new MetricName("request-total", "producer-node-metrics", "", node),
                        (config, now) -> requests.get());
                metrics.addMetric(
                        new MetricName("outgoing-byte-total", "producer-node-metrics", "", node),
                        (config, now) -> bytes.get());
                ProducerConnectionJudge judge = new ProducerConnectionJudge(
                        Map.of((InetSocketAddress) server.getLocalSocketAddress(), "1"),
                        DoctorClient.of("probe", ClientLibrary.JAVA, ClientRole.PRODUCER),
                        KafkaSettings.fromClientConfig(Map.of(), ClientKind.PRODUCER),
                        HostTcpFacts.current().kernelFacts(),
                        TcpsightConfig.from(Map.of()));
                metrics.metrics().values().forEach(judge.counts()::metric);
                judge.start();
                for (int i = 0; i < clients.size(); i++) {
                    send(clients.get(i), peers.get(i), bytesPerSocket[i]);
                }
                // a Produce request a 16 KiB of what was counted, none where nothing was
                requests.addAndGet(counted / 16_384);
                bytes.addAndGet(counted);
                Thread.sleep(50);
                ProducerConnectionJudge.Judgement judgement = judge.judge();

                Map<Integer, Boolean> byLocalPort = new TreeMap<>();
                for (TrackedConnection connection : judge.connections()) {
                    byLocalPort.put(
                            connection.identity().local().orElseThrow().getPort(),
                            judge.attributed().containsKey(connection));
                }
                assertEquals(clients.size(), byLocalPort.size(), "each socket judged: " + byLocalPort);
                assertEquals(judge.attributed().size(), judgement.connections(), "the judgement says on how many");
                List<Boolean> attributed = new ArrayList<>();
                for (Socket client : clients) {
                    attributed.add(byLocalPort.get(client.getLocalPort()));
                }
                return attributed;
            } finally {
                for (Socket socket : clients) {
                    socket.close();
                }
                for (Socket socket : peers) {
                    socket.close();
                }
            }
        }
    }

    /** {@code count} bytes from one end, read whole at the other, so that they are acknowledged. */
    private static void send(Socket from, Socket to, int count) throws Exception {
        Thread reader = new Thread(() -> readQuietly(to, count));
        reader.start();
        OutputStream out = from.getOutputStream();
        out.write(new byte[count]);
        out.flush();
        reader.join(10_000);
    }

    private static int sum(int[] values) {
        int sum = 0;
        for (int value : values) {
            sum += value;
        }
        return sum;
    }

    private static void readQuietly(Socket socket, int count) {
        try {
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[65_536];
            int read = 0;
            while (read < count) {
                int n = in.read(buffer, 0, Math.min(buffer.length, count - read));
                if (n < 0) {
                    return;
                }
                read += n;
            }
        } catch (IOException ignored) {
            // the assertion tells what arrived
        }
    }
}
