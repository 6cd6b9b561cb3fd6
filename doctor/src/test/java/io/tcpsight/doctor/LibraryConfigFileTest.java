package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ClientLibrary;
import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Each library's own config file, read into the keys the doctor judges with, written out by hand. */
class LibraryConfigFileTest {
    private static Properties file(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        return properties;
    }

    private static Map<String, String> keys(Properties properties) {
        Map<String, String> keys = new TreeMap<>();
        properties.stringPropertyNames().forEach(key -> keys.put(key, properties.getProperty(key)));
        return keys;
    }

    @Test
    void aLibrdkafkaProducerConfIsReadInItsOwnMeaningAndItsDefaultsFillTheRest() throws IOException {
        LibraryConfigFile.Read read = LibraryConfigFile.read(
                ClientLibrary.LIBRDKAFKA,
                file("metadata.broker.list=broker:9092\n"
                        + "client.id=edge\n"
                        + "socket.send.buffer.bytes=65536\n"
                        + "socket.receive.buffer.bytes=0\n"
                        + "queue.buffering.max.ms=20\n"
                        + "queue.buffering.max.kbytes=65536\n"
                        + "request.required.acks=-1\n"
                        + "statistics.interval.ms=1000\n"
                        + "debug=broker\n"
                        + "tcpsight.target.throughput.mbit=200\n"));
        assertEquals(
                Map.of(
                        "bootstrap.servers", "broker:9092",
                        "client.id", "edge",
                        "send.buffer.bytes", "65536",
                        "receive.buffer.bytes", "-1",
                        "linger.ms", "20",
                        "buffer.memory", "67108864",
                        "acks", "all",
                        "tcpsight.target.throughput.mbit", "200"),
                keys(read.javaKeys()));
        // every key it does not read is named, not dropped; its value is never kept
        assertEquals(Set.of("debug", "statistics.interval.ms"), read.notRead());
        Map<String, String> judged =
                keys(LibraryConfigFile.withDefaults(ClientLibrary.LIBRDKAFKA, ClientRole.PRODUCER, read.javaKeys()));
        // librdkafka's batch and request sizes and in-flight count, not Java's; what the file sets stays
        assertEquals("1000000", judged.get("batch.size"));
        assertEquals("1000000", judged.get("max.request.size"));
        assertEquals("1000000", judged.get("max.in.flight.requests.per.connection"));
        assertEquals("false", judged.get("enable.idempotence"));
        // with idempotence librdkafka keeps at most 5 in flight
        Map<String, String> idempotent = keys(LibraryConfigFile.withDefaults(
                ClientLibrary.LIBRDKAFKA,
                ClientRole.PRODUCER,
                LibraryConfigFile.read(ClientLibrary.LIBRDKAFKA, file("enable.idempotence=true\nlinger.ms=0.5\n"))
                        .javaKeys()));
        assertEquals("5", idempotent.get("max.in.flight.requests.per.connection"));
        assertEquals("1", idempotent.get("linger.ms"), "librdkafka's fraction of a millisecond, rounded up");
        assertEquals("20", judged.get("linger.ms"));
        assertEquals("65536", judged.get("send.buffer.bytes"));
    }

    @Test
    void aConsumersFileGetsNoProducerDefaults() throws IOException {
        Properties read = LibraryConfigFile.read(
                        ClientLibrary.LIBRDKAFKA, file("bootstrap.servers=b:9092\ngroup.id=g\nfetch.max.bytes=65536\n"))
                .javaKeys();
        Map<String, String> judged =
                keys(LibraryConfigFile.withDefaults(ClientLibrary.LIBRDKAFKA, ClientRole.CONSUMER, read));
        assertEquals(
                Map.of(
                        "bootstrap.servers", "b:9092",
                        "group.id", "g",
                        "fetch.max.bytes", "65536",
                        "receive.buffer.bytes", "-1",
                        "send.buffer.bytes", "-1"),
                judged);
    }

    @Test
    void saslUserAndPasswordBecomeOneJaasLineAndACaFileAPemTruststore() throws IOException {
        Properties read = LibraryConfigFile.read(
                        ClientLibrary.LIBRDKAFKA,
                        file("security.protocol=sasl_ssl\nsasl.mechanisms=SCRAM-SHA-512\nsasl.username=app\n"
                                + "sasl.password=s3cret\nssl.ca.location=/etc/ca.pem\n"))
                .javaKeys();
        assertEquals("SASL_SSL", read.getProperty("security.protocol"));
        assertEquals("SCRAM-SHA-512", read.getProperty("sasl.mechanism"));
        assertEquals(
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"app\" password=\"s3cret\";",
                read.getProperty("sasl.jaas.config"));
        assertEquals("/etc/ca.pem", read.getProperty("ssl.truststore.location"));
        assertEquals("PEM", read.getProperty("ssl.truststore.type"));
        IllegalArgumentException half = assertThrows(
                IllegalArgumentException.class,
                () -> LibraryConfigFile.read(ClientLibrary.LIBRDKAFKA, file("sasl.username=app\n")));
        assertEquals("librdkafka names a SASL user without a password", half.getMessage());
    }

    @Test
    void kafkaPythonsSocketOptionsAreWhatSizeItsSocketsAndItsKeywordsReadAsJavasKeys() throws IOException {
        LibraryConfigFile.Read read = LibraryConfigFile.read(
                ClientLibrary.KAFKA_PYTHON,
                file("bootstrap_servers=b:9092\n"
                        + "socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)]\n"
                        + "max_partition_fetch_bytes=65536\n"
                        + "enable_idempotence=True\n"
                        + "receive_buffer_bytes=1048576\n"));
        Map<String, String> keys = keys(read.javaKeys());
        assertEquals("65536", keys.get("receive.buffer.bytes"));
        assertEquals("65536", keys.get("max.partition.fetch.bytes"));
        assertEquals("true", keys.get("enable.idempotence"));
        // 3.x does not apply receive_buffer_bytes: named as not read, never taken for the socket's size
        assertEquals(Set.of("receive_buffer_bytes"), read.notRead());
        IllegalArgumentException notABool = assertThrows(
                IllegalArgumentException.class,
                () -> LibraryConfigFile.read(ClientLibrary.KAFKA_PYTHON, file("enable_idempotence=yes\n")));
        assertTrue(
                notABool.getMessage().contains("enable_idempotence=yes")
                        && notABool.getMessage().contains("true or false"),
                notABool.getMessage());
    }

    @Test
    void franzGoOptionsTakeGoDurations() throws IOException {
        Properties read = LibraryConfigFile.read(
                        ClientLibrary.FRANZ_GO,
                        file("kgo.SeedBrokers=b:9092\nkgo.ProducerLinger=25 * time.Millisecond\n"
                                + "kgo.FetchMaxWait=1s\nkgo.DisableIdempotentWrite=true\n"
                                + "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"))
                .javaKeys();
        assertEquals("25", read.getProperty("linger.ms"));
        assertEquals("SASL_SSL", read.getProperty("security.protocol"), "franz-go's TLS and SASL in Java's keys");
        assertEquals("1000", read.getProperty("fetch.max.wait.ms"));
        assertEquals("false", read.getProperty("enable.idempotence"));
        IllegalArgumentException notADuration = assertThrows(
                IllegalArgumentException.class,
                () -> LibraryConfigFile.read(ClientLibrary.FRANZ_GO, file("kgo.ProducerLinger=soon\n")));
        assertTrue(
                notADuration.getMessage().startsWith("franz-go key kgo.ProducerLinger=soon does not read: allowed:"),
                notADuration.getMessage());
        Map<String, String> judged =
                keys(LibraryConfigFile.withDefaults(ClientLibrary.FRANZ_GO, ClientRole.PRODUCER, read));
        assertEquals("1000012", judged.get("batch.size"));
        assertEquals("25", judged.get("linger.ms"), "the file's linger, not kgo's 10 ms");
        assertEquals("104857600", judged.get("max.request.size"), "kgo caps a request at BrokerMaxWriteBytes");
        assertEquals(
                "1", judged.get("max.in.flight.requests.per.connection"), "one request a broker without idempotence");
        // idempotent (kgo's default): Java's five in flight stand, and kgo's in-flight option is refused
        Properties idempotent = LibraryConfigFile.read(
                        ClientLibrary.FRANZ_GO, file("kgo.DisableIdempotentWrite=false\n"))
                .javaKeys();
        assertEquals("true", idempotent.getProperty("enable.idempotence"));
        assertEquals(
                null,
                keys(LibraryConfigFile.withDefaults(ClientLibrary.FRANZ_GO, ClientRole.PRODUCER, idempotent))
                        .get("max.in.flight.requests.per.connection"));
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> LibraryConfigFile.read(
                        ClientLibrary.FRANZ_GO, file("kgo.MaxProduceRequestsInflightPerBroker=5\n")));
        assertTrue(refused.getMessage().contains("kgo.DisableIdempotentWrite=true"), refused.getMessage());
    }

    @Test
    void kafkaPython3sDefaultsAreIdempotentAndItsSendBufferIsReadFromSocketOptions() throws IOException {
        LibraryConfigFile.Read read = LibraryConfigFile.read(
                ClientLibrary.KAFKA_PYTHON,
                file("bootstrap_servers=b:9092\nlinger_ms=5\n"
                        + "socket_options=[(socket.SOL_SOCKET, socket.SO_SNDBUF, 131072)]\n"));
        Map<String, String> judged =
                keys(LibraryConfigFile.withDefaults(ClientLibrary.KAFKA_PYTHON, ClientRole.PRODUCER, read.javaKeys()));
        assertEquals("131072", judged.get("send.buffer.bytes"));
        assertEquals("-1", judged.get("receive.buffer.bytes"));
        assertEquals("all", judged.get("acks"));
        assertEquals("true", judged.get("enable.idempotence"));
        assertEquals("1", judged.get("max.in.flight.requests.per.connection"), "one batch a partition at a time");
        // acks=1 in the file: no idempotence, kafka-python's five in flight
        Map<String, String> acksOne = keys(LibraryConfigFile.withDefaults(
                ClientLibrary.KAFKA_PYTHON,
                ClientRole.PRODUCER,
                LibraryConfigFile.read(ClientLibrary.KAFKA_PYTHON, file("acks=1\n"))
                        .javaKeys()));
        assertEquals("false", acksOne.get("enable.idempotence"));
        assertEquals(null, acksOne.get("max.in.flight.requests.per.connection"));
        // a buffer in a form it cannot take apart is named, never guessed
        LibraryConfigFile.Read expression = LibraryConfigFile.read(
                ClientLibrary.KAFKA_PYTHON,
                file("socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)]\n"));
        assertEquals(Set.of("socket_options"), expression.notRead());
        assertEquals(null, expression.javaKeys().getProperty("receive.buffer.bytes"));
    }

    @Test
    void aPlainLoginIsQuotedAndAUserWithoutAMechanismIsRefused() throws IOException {
        Properties plain = LibraryConfigFile.read(
                        ClientLibrary.LIBRDKAFKA,
                        file("sasl.mechanisms=PLAIN\nsasl.username=app\nsasl.password=a\"b\\\\c\n"))
                .javaKeys();
        assertEquals(
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\" password=\"a\\\"b\\\\c\";",
                plain.getProperty("sasl.jaas.config"));
        IllegalArgumentException noMechanism = assertThrows(
                IllegalArgumentException.class,
                () -> LibraryConfigFile.read(
                        ClientLibrary.LIBRDKAFKA, file("sasl.username=app\nsasl.password=s3cret\n")));
        assertTrue(noMechanism.getMessage().contains("no mechanism; add sasl.mechanisms"), noMechanism.getMessage());
        assertTrue(!noMechanism.getMessage().contains("s3cret"), noMechanism.getMessage());
        // a line that is no key (a stray PEM block) is counted, never named
        LibraryConfigFile.Read pem =
                LibraryConfigFile.read(ClientLibrary.LIBRDKAFKA, file("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC+secret=\n"));
        assertEquals(1, pem.unnamed());
        assertTrue(pem.notRead().isEmpty(), pem.notRead().toString());
    }

    @Test
    void onlyTheLibrariesWithAFileOfTheirOwnAreRead() {
        assertTrue(LibraryConfigFile.readsOwnFile(ClientLibrary.LIBRDKAFKA));
        assertTrue(LibraryConfigFile.readsOwnFile(ClientLibrary.KAFKA_PYTHON));
        assertTrue(LibraryConfigFile.readsOwnFile(ClientLibrary.FRANZ_GO));
        assertFalse(LibraryConfigFile.readsOwnFile(ClientLibrary.JAVA));
        assertFalse(LibraryConfigFile.readsOwnFile(ClientLibrary.SARAMA));
    }
}
