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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;

/**
 * The write probe's producer keeps its bootstrap connection beside its connection to the same
 * broker; the broker's counts (its own metrics) are judged on the socket that carried them, over
 * real loopback sockets and the client's metrics as Kafka's own registry holds them.
 */
class ProducerConnectionJudgeTest {
    private static final int SENT = 1 << 20;

    @Test
    void aBrokersCountsAreJudgedOnTheSocketThatCarriedThemNotOnOneThatSharesItsAddress() throws Exception {
        NativeLibrary.assumeLoaded();
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
                Socket bootstrap = new Socket(server.getInetAddress(), server.getLocalPort());
                Socket bootstrapPeer = server.accept();
                Socket produce = new Socket(server.getInetAddress(), server.getLocalPort());
                Socket producePeer = server.accept();
                Metrics metrics = new Metrics()) {
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
            // the produce connection carries the broker's requests; the bootstrap connection a few bytes
            bootstrap.getOutputStream().write(new byte[100]);
            readFully(bootstrapPeer.getInputStream(), 100);
            Thread reader = new Thread(() -> readQuietly(producePeer, SENT));
            reader.start();
            OutputStream out = produce.getOutputStream();
            out.write(new byte[SENT]);
            out.flush();
            reader.join(10_000);
            requests.addAndGet(64);
            bytes.addAndGet(SENT);
            Thread.sleep(50);
            judge.judge();

            Map<Integer, Boolean> trafficByLocalPort = new TreeMap<>();
            for (TrackedConnection connection : judge.connections()) {
                trafficByLocalPort.put(
                        connection.identity().local().orElseThrow().getPort(),
                        judge.settingsOf(connection).produceTraffic().isPresent());
            }
            assertEquals(
                    Map.of(bootstrap.getLocalPort(), false, produce.getLocalPort(), true),
                    trafficByLocalPort,
                    "node 1's requests on the socket that carried them (port " + produce.getLocalPort()
                            + "), not on the bootstrap connection beside it (port " + bootstrap.getLocalPort() + ")");
        }
    }

    private static void readQuietly(Socket socket, int count) {
        try {
            readFully(socket.getInputStream(), count);
        } catch (IOException ignored) {
            // the assertion tells what arrived
        }
    }

    private static void readFully(InputStream in, int count) throws IOException {
        byte[] buffer = new byte[65_536];
        int read = 0;
        while (read < count) {
            int n = in.read(buffer, 0, Math.min(buffer.length, count - read));
            if (n < 0) {
                return;
            }
            read += n;
        }
    }
}
