package io.tcpsight.agent.internal.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerSocketSettingsTest {
    @TempDir
    Path directory;

    private Path serverProperties(String text) throws Exception {
        return Files.writeString(directory.resolve("server.properties"), text);
    }

    @Test
    void theFileThenItsOverridesAndKafkasDefaultsForWhatNeitherSets() throws Exception {
        Path file = serverProperties("node.id=1\nsocket.send.buffer.bytes=-1\nsocket.receive.buffer.bytes = 262144\n");
        BrokerSocketSettings settings = BrokerSocketSettings.fromCommandLine("kafka.Kafka " + file
                + " --override socket.receive.buffer.bytes=524288 --override replica.fetch.max.bytes=6291456");
        assertEquals(OptionalInt.of(-1), settings.get(BrokerSocketSettings.SEND_BUFFER));
        assertEquals(OptionalInt.of(524_288), settings.get(BrokerSocketSettings.RECEIVE_BUFFER), "the override wins");
        assertEquals(OptionalInt.of(6_291_456), settings.get(BrokerSocketSettings.REPLICA_FETCH_MAX));
        assertEquals(OptionalInt.of(50), settings.get(BrokerSocketSettings.LISTEN_BACKLOG));
        assertEquals(OptionalInt.of(65_536), settings.get(BrokerSocketSettings.REPLICA_RECEIVE_BUFFER));
        assertEquals(OptionalInt.of(10_485_760), settings.get(BrokerSocketSettings.REPLICA_FETCH_RESPONSE_MAX));
        assertEquals(
                "the broker's socket settings (" + file + "): socket.send.buffer.bytes=-1"
                        + " socket.receive.buffer.bytes=524288 socket.listen.backlog.size=50 (default)"
                        + " replica.socket.receive.buffer.bytes=65536 (default) replica.fetch.max.bytes=6291456"
                        + " replica.fetch.response.max.bytes=10485760 (default)",
                settings.describe());
    }

    /**
     * /connections shows with each connection the settings that apply to it: a client's connection
     * to a listener the listener's socket keys, this broker's own replica fetcher the replica keys,
     * any other client connection nothing; never anything else of the file, a password least of all.
     */
    @Test
    void eachConnectionShowsTheSettingsThatApplyToItAndNothingElseOfTheFile() throws Exception {
        Path file = serverProperties("socket.send.buffer.bytes=-1\nssl.keystore.password=hunter2\n");
        BrokerSocketSettings settings = BrokerSocketSettings.fromCommandLine(
                "kafka.Kafka " + file + " --override replica.fetch.max.bytes=6291456");
        InetSocketAddress here = new InetSocketAddress("10.0.0.2", 9092);
        InetSocketAddress there = new InetSocketAddress("10.0.0.1", 50000);
        ConnectionIdentity consumers = ConnectionIdentity.of(Role.BROKER, here, there)
                .withClientId("consumer-g-1")
                .withListener("PLAINTEXT");
        assertEquals(
                "{\"source\":\"" + file + "\","
                        + "\"socket.send.buffer.bytes\":{\"value\":-1,\"default\":false},"
                        + "\"socket.receive.buffer.bytes\":{\"value\":102400,\"default\":true},"
                        + "\"socket.listen.backlog.size\":{\"value\":50,\"default\":true}}",
                settings.jsonFor(consumers));
        ConnectionIdentity ownFetcher =
                ConnectionIdentity.of(Role.CLIENT, there, here).withClientId("broker-1-fetcher-0");
        assertEquals(
                "{\"source\":\"" + file + "\","
                        + "\"replica.socket.receive.buffer.bytes\":{\"value\":65536,\"default\":true},"
                        + "\"replica.fetch.max.bytes\":{\"value\":6291456,\"default\":false},"
                        + "\"replica.fetch.response.max.bytes\":{\"value\":10485760,\"default\":true}}",
                settings.jsonFor(ownFetcher));
        assertEquals(
                "",
                settings.jsonFor(ConnectionIdentity.of(Role.CLIENT, there, here).withClientId("adminclient-1")));
        assertEquals(
                "",
                settings.jsonFor(ConnectionIdentity.of(Role.BROKER, new InetSocketAddress("10.0.0.2", 9999), there)),
                "accepted on a port that is no Kafka listener: none of the listener's keys sizes it");
        assertFalse(settings.jsonFor(consumers).contains("hunter2"));
        assertEquals(
                "", BrokerSocketSettings.unknown("not a broker").jsonFor(consumers), "nothing known, nothing shown");
        // a path longer than the bound is cut: what every connection repeats stays small
        BrokerSocketSettings longSource = BrokerSocketSettings.fromProperties(new Properties(), "x".repeat(10_000));
        assertTrue(longSource.jsonFor(consumers).length() < 600, longSource.jsonFor(consumers));
    }

    @Test
    void aFileThatSetsNoneIsKafkasDefaultsThroughout() throws Exception {
        BrokerSocketSettings settings =
                BrokerSocketSettings.fromCommandLine("kafka.Kafka " + serverProperties("node.id=1\n"));
        assertEquals(OptionalInt.of(102_400), settings.get(BrokerSocketSettings.SEND_BUFFER));
        assertEquals(OptionalInt.of(102_400), settings.get(BrokerSocketSettings.RECEIVE_BUFFER));
        assertTrue(settings.known());
    }

    @Test
    void aValueThatIsNoWholeNumberIsUnknownAndSaid() throws Exception {
        BrokerSocketSettings settings = BrokerSocketSettings.fromCommandLine(
                "kafka.Kafka " + serverProperties("socket.send.buffer.bytes=lots\n"));
        assertEquals(OptionalInt.empty(), settings.get(BrokerSocketSettings.SEND_BUFFER));
        assertEquals(OptionalInt.of(102_400), settings.get(BrokerSocketSettings.RECEIVE_BUFFER));
        assertTrue(
                settings.describe().contains("not whole numbers, so unknown: socket.send.buffer.bytes"),
                settings.describe());
    }

    @Test
    void anythingButABrokerStartedFromAFileIsUnknownWithTheReason() {
        assertEquals(
                "the broker's socket settings are unknown (not a broker started by kafka.Kafka with a properties file)",
                BrokerSocketSettings.fromCommandLine("org.example.App --serve").describe());
        assertEquals(
                "the broker's socket settings are unknown (no command line to read the broker's config from)",
                BrokerSocketSettings.fromCommandLine(null).describe());
        BrokerSocketSettings missing = BrokerSocketSettings.fromCommandLine("kafka.Kafka " + directory.resolve("gone"));
        assertFalse(missing.known());
        assertTrue(missing.describe().contains("could not be read"), missing.describe());
        assertEquals(OptionalInt.empty(), missing.get(BrokerSocketSettings.SEND_BUFFER));
    }
}
