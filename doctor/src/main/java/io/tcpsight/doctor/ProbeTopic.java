package io.tcpsight.doctor;

import java.io.PrintStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The probe topic: its partitions per broker, and on the embedded broker only, creating and filling it. */
final class ProbeTopic {
    static final int FILL_RECORDS = 1024;
    static final int FILL_RECORD_BYTES = 64 * 1024;

    private ProbeTopic() {}

    /** Creates the topic with 64 MiB of incompressible records unless it exists. Only ever called for the embedded broker. */
    static void fillIfMissing(String bootstrap, String topic, PrintStream progress) throws InterruptedException {
        Properties config = new Properties();
        config.setProperty("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(config)) {
            if (admin.listTopics().names().get().contains(topic)) {
                return;
            }
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        } catch (ExecutionException failed) {
            throw new IllegalStateException(
                    "cannot create the probe topic " + topic + " on the embedded broker: " + failed.getCause(), failed);
        }
        progress.println("tcpsight doctor: filling " + topic + " with "
                + FILL_RECORDS * (long) FILL_RECORD_BYTES / (1 << 20) + " MiB");
        config.setProperty(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.setProperty(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.setProperty(ProducerConfig.LINGER_MS_CONFIG, "5");
        config.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            byte[] value = new byte[FILL_RECORD_BYTES];
            for (int i = 0; i < FILL_RECORDS; i++) {
                ThreadLocalRandom.current().nextBytes(value);
                producer.send(new ProducerRecord<>(topic, value.clone()));
            }
            producer.flush();
        }
    }

    /** Partitions of the topic per broker that leads any, at least 1; the topic must exist. */
    static int partitionsPerBroker(Admin admin, String topic, Duration timeout) throws InterruptedException {
        TopicDescription description;
        try {
            description = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic);
        } catch (ExecutionException | TimeoutException missing) {
            throw new IllegalArgumentException("--probe-topic: topic '" + topic + "' cannot be described: "
                    + (missing instanceof ExecutionException
                            ? missing.getCause()
                            : "no answer within " + timeout.toMillis() + " ms"));
        }
        Set<Integer> leaders = new HashSet<>();
        description
                .partitions()
                .forEach(partition -> leaders.add(
                        partition.leader() == null ? -1 : partition.leader().id()));
        return Math.max(1, (int) Math.ceil((double) description.partitions().size() / Math.max(1, leaders.size())));
    }
}
