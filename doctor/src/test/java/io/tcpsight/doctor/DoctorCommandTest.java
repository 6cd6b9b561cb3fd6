package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line as an operator meets it: exit codes and messages, against real loopback sockets. */
class DoctorCommandTest {
    /** What one run printed and returned. */
    record Run(int exit, String out, String err) {}

    static Run doctor(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of("doctor"));
        all.addAll(List.of(args));
        int exit = TcpsightCli.run(
                all.toArray(new String[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        Run run = doctor("--bootstrap", "x:1");
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(run.err().contains("Unknown options: '--bootstrap'"), run.err());
        assertTrue(run.err().contains("--bootstrap-server"), "shows the usage: " + run.err());
    }

    @Test
    void anUnknownSettingNamesTheKeyAndTheKnownOnes() {
        Run run = doctor("--bootstrap-server", "127.0.0.1:1", "--set", "tcpsight.target.mbit=500");
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(run.err().contains("unknown key 'tcpsight.target.mbit'"), run.err());
        assertTrue(run.err().contains("tcpsight.target.throughput.mbit"), run.err());
    }

    @Test
    void aSettingOutOfRangeNamesKeyValueAndRange() {
        Run run = doctor("--bootstrap-server", "127.0.0.1:1", "--set", "tcpsight.target.throughput.mbit=-5");
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(
                run.err().contains("tcpsight.target.throughput.mbit")
                        && run.err().contains("-5"),
                run.err());
    }

    @Test
    void aBadSettingInTheCommandConfigIsAUsageErrorToo(@TempDir Path directory) throws IOException {
        Path config = Files.writeString(directory.resolve("client.properties"), "tcpsight.rule.min.rtt.ms=soon\n");
        Run run = doctor("--bootstrap-server", "127.0.0.1:1", "--command-config", config.toString());
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(run.err().contains("tcpsight.rule.min.rtt.ms") && run.err().contains("soon"), run.err());
    }

    @Test
    void aMissingCommandConfigNamesTheOptionAndThePath(@TempDir Path directory) {
        Run run = doctor(
                "--bootstrap-server",
                "127.0.0.1:1",
                "--command-config",
                directory.resolve("absent.properties").toString());
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(
                run.err()
                        .contains("--command-config: " + directory.resolve("absent.properties")
                                + " is not a readable file"),
                run.err());
    }

    @Test
    void probeSecondsAndTimeoutOutsideTheirRangesAreUsageErrors() {
        Run probe = doctor("--bootstrap-server", "127.0.0.1:1", "--probe-topic", "t", "--probe-seconds", "0");
        assertEquals(ExitCodes.USAGE, probe.exit());
        assertTrue(probe.err().contains("--probe-seconds: 0 is not allowed; use 1 to 600"), probe.err());
        Run timeout = doctor("--bootstrap-server", "127.0.0.1:1", "--timeout-ms", "5");
        assertEquals(ExitCodes.USAGE, timeout.exit());
        assertTrue(timeout.err().contains("--timeout-ms: 5 is not allowed"), timeout.err());
    }

    @Test
    void anUnknownClientLibraryNamesTheValueAndTheLibraries() {
        Run run = doctor("--bootstrap-server", "127.0.0.1:1", "--client-library", "rdkafka-ish");
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(
                run.err()
                        .contains("--client-library: 'rdkafka-ish' is not allowed; use one of java, librdkafka, "
                                + "kafka-python, franz-go, sarama, kafkajs, kafka-go"),
                run.err());
    }

    @Test
    void anUnknownClientRoleNamesTheValueAndTheRoles() {
        Run run = doctor("--bootstrap-server", "127.0.0.1:1", "--client", "streams");
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(run.err().contains("--client: 'streams' is not allowed; use producer or consumer"), run.err());
    }

    @Test
    void aConfigWithProducerAndConsumerKeysAsksWhichItIs(@TempDir Path directory) throws IOException {
        Path config = Files.writeString(directory.resolve("both.properties"), "batch.size=65536\ngroup.id=g\n");
        Run run = doctor("--bootstrap-server", "127.0.0.1:1", "--command-config", config.toString());
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(
                run.err()
                        .contains(config + " has producer keys (batch.size) and consumer keys (group.id); say which"
                                + " client it is with --client producer or --client consumer"),
                run.err());
    }

    @Test
    void aProducersConfigIsJudgedAsAProducerAndTheReportSaysWhy(@TempDir Path directory) throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        Path config = Files.writeString(directory.resolve("producer.properties"), "acks=all\nlinger.ms=10\n");
        Run run = doctor(
                "--bootstrap-server",
                "127.0.0.1:" + closed,
                "--timeout-ms",
                "1500",
                "--command-config",
                config.toString());
        assertEquals(ExitCodes.FINDINGS, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("judged as a producer, from its producer keys (acks, linger.ms)"), run.out());
        Run told = doctor(
                "--bootstrap-server",
                "127.0.0.1:" + closed,
                "--timeout-ms",
                "1500",
                "--command-config",
                config.toString(),
                "--client",
                "consumer");
        assertTrue(told.out().contains("judged as a consumer (--client consumer)"), told.out());
    }

    @Test
    void aLibrdkafkaConfIsReadInItsOwnKeysAndTheReportNamesWhatItDidNotRead(@TempDir Path directory)
            throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        Path conf = Files.writeString(
                directory.resolve("producer.conf"),
                "metadata.broker.list=127.0.0.1:" + closed
                        + "\nqueue.buffering.max.ms=20\nsocket.send.buffer.bytes=65536\n"
                        + "statistics.interval.ms=1000\nsasl.password=not-for-the-report\n");
        Run run = doctor("--timeout-ms", "1500", "--command-config", conf.toString(), "--client-library", "librdkafka");
        assertEquals(ExitCodes.USAGE, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("librdkafka names a SASL password without a user"), run.err());
        assertTrue(!run.err().contains("not-for-the-report"), "no secret in the error: " + run.err());
        Files.writeString(
                conf,
                "metadata.broker.list=127.0.0.1:" + closed
                        + "\nqueue.buffering.max.ms=20\nsocket.send.buffer.bytes=65536\n"
                        + "statistics.interval.ms=1000\nsasl.mechanisms=PLAIN\nsasl.username=app\n"
                        + "sasl.password=not-for-the-report\nssl.key.password=nor-this\n");
        Run read =
                doctor("--timeout-ms", "1500", "--command-config", conf.toString(), "--client-library", "librdkafka");
        assertEquals(ExitCodes.FINDINGS, read.exit(), read.out() + read.err());
        // the bootstrap came from librdkafka's own key, and the role from what it read (linger.ms, a producer's)
        assertTrue(read.out().contains("unreachable: no handshake with 127.0.0.1:" + closed), read.out());
        assertTrue(
                read.out()
                        .contains(conf + ", read as librdkafka's own keys; keys it does not set are librdkafka's"
                                + " defaults; keys the doctor does not read, so not judged or measured:"
                                + " ssl.key.password, statistics.interval.ms"),
                read.out());
        assertTrue(read.out().contains("judged as a producer, from its producer keys (linger.ms)"), read.out());
        for (String secret : new String[] {"not-for-the-report", "nor-this"}) {
            assertTrue(!read.out().contains(secret) && !read.err().contains(secret), "no secret printed: " + secret);
        }
    }

    @Test
    void aBootstrapServerWithoutAPortIsAUsageError() {
        Run run = doctor("--bootstrap-server", "broker-without-port");
        assertEquals(ExitCodes.USAGE, run.exit());
        assertTrue(run.err().contains("names no host:port"), run.err());
    }

    @Test
    void aClosedPortIsReportedUnreachableWithExitOne() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        Run run = doctor("--bootstrap-server", "127.0.0.1:" + closed, "--timeout-ms", "1500");
        assertEquals(ExitCodes.FINDINGS, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("CRITICAL  broker-unreachable"), run.out());
        assertTrue(run.out().contains("unreachable: no handshake with 127.0.0.1:" + closed), run.out());
        assertTrue(run.out().contains("no broker answered"), run.out());
    }

    @Test
    void aPortThatAcceptsButDoesNotSpeakKafkaIsReportedInJson() throws Exception {
        try (SilentListener silent = new SilentListener()) {
            Run run = doctor("--bootstrap-server", "127.0.0.1:" + silent.port(), "--timeout-ms", "1500", "--json");
            assertEquals(ExitCodes.FINDINGS, run.exit(), run.out() + run.err());
            String json = run.out().strip();
            assertTrue(json.startsWith("[{\"rule\":\"broker-unreachable\",\"severity\":\"critical\""), json);
            assertTrue(json.contains("TCP handshake completes but Kafka did not answer"), json);
            assertTrue(json.contains("\"remote\":\"127.0.0.1:" + silent.port() + "\""), json);
            assertTrue(json.endsWith("]"), "only the findings array on stdout: " + json);
        }
    }
}
