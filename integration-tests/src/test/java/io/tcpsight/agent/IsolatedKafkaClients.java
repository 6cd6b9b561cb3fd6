package io.tcpsight.agent;

import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A JVM whose only Kafka lives in a URLClassLoader beside the application class path (its parent
 * is the platform loader), as in an application server, an OSGi container or a tool that isolates
 * Kafka: it produces and consumes through Kafka's own clients, reached by reflection, then holds
 * them open for the test to ask the agent what it saw. Arguments: bootstrap servers, the Kafka lib
 * folder, topic, record count.
 */
public final class IsolatedKafkaClients {
    private IsolatedKafkaClients() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[2];
        int records = Integer.parseInt(args[3]);
        URL[] jars;
        try (Stream<Path> files = Files.list(Path.of(args[1]))) {
            jars = files.filter(file -> file.toString().endsWith(".jar"))
                    .map(IsolatedKafkaClients::url)
                    .toArray(URL[]::new);
        }
        ClassLoader isolated = new URLClassLoader(jars, ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(isolated);

        Properties producerConfig = new Properties();
        producerConfig.put("bootstrap.servers", bootstrap);
        producerConfig.put("client.id", "isolated-producer");
        producerConfig.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        producerConfig.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        Class<?> producerType = isolated.loadClass("org.apache.kafka.clients.producer.KafkaProducer");
        Class<?> recordType = isolated.loadClass("org.apache.kafka.clients.producer.ProducerRecord");
        Object producer = producerType.getConstructor(Properties.class).newInstance(producerConfig);
        Method send = producerType.getMethod("send", recordType);
        for (int i = 0; i < records; i++) {
            Object record =
                    recordType.getConstructor(String.class, Object.class).newInstance(topic, "record-" + i);
            ((Future<?>) send.invoke(producer, record)).get(60, TimeUnit.SECONDS);
        }
        System.out.println("isolated clients: produced " + records);

        Properties consumerConfig = new Properties();
        consumerConfig.put("bootstrap.servers", bootstrap);
        consumerConfig.put("client.id", "isolated-consumer");
        consumerConfig.put("group.id", "isolated");
        consumerConfig.put("auto.offset.reset", "earliest");
        consumerConfig.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        consumerConfig.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        Class<?> consumerType = isolated.loadClass("org.apache.kafka.clients.consumer.KafkaConsumer");
        Object consumer = consumerType.getConstructor(Properties.class).newInstance(consumerConfig);
        consumerType.getMethod("subscribe", Collection.class).invoke(consumer, List.of(topic));
        Method poll = consumerType.getMethod("poll", Duration.class);
        int consumed = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (consumed < records && System.nanoTime() < deadline) {
            Object batch = poll.invoke(consumer, Duration.ofMillis(200));
            consumed += (Integer) batch.getClass().getMethod("count").invoke(batch);
        }
        Class<?> hooks = Class.forName("io.tcpsight.agent.internal.hooks.Hooks", false, null);
        System.out.println("isolated clients: consumed " + consumed + " of " + records + ", hooks from "
                + (hooks.getClassLoader() == null ? "the bootstrap loader" : hooks.getClassLoader()));
        // Both clients stay open, and keep polling, until the test has asked the agent and ends this JVM.
        while (true) {
            poll.invoke(consumer, Duration.ofMillis(500));
        }
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
