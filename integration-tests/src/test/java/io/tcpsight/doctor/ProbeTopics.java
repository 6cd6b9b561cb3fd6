package io.tcpsight.doctor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Lab helpers for the doctor's throughput probe: a filled one-partition topic, and the probe's lines read back. */
final class ProbeTopics {
    private static final Pattern PROBE_LINE = Pattern.compile("^  (\\S.*?)\\s+([0-9.]+) Mbit/s  \\(", Pattern.MULTILINE);

    private ProbeTopics() {
    }

    /** A one-partition topic with megabytes of incompressible 64 KiB records, produced across the lab's line. */
    static void fill(String bootstrap, String topic, int megabytes) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties config = new Properties();
        config.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.setProperty(ProducerConfig.SEND_BUFFER_CONFIG, "-1");
        config.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        config.setProperty(ProducerConfig.LINGER_MS_CONFIG, "20");
        config.setProperty(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(256L << 20));
        config.setProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(2 << 20));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[64 * 1024];
            for (int i = 0; i < megabytes * 16; i++) {
                ThreadLocalRandom.current().nextBytes(value);
                producer.send(new ProducerRecord<>(topic, value.clone()));
            }
            producer.flush();
        }
    }

    /** The probe section's lines: variant label -> Mbit/s, in the order they ran. */
    static Map<String, Double> probeRates(String report) {
        int section = report.indexOf("== consume throughput");
        if (section < 0) {
            throw new AssertionError("no probe section in:\n" + report);
        }
        String lines = report.substring(section, report.indexOf("== findings", section));
        Map<String, Double> rates = new LinkedHashMap<>();
        Matcher matcher = PROBE_LINE.matcher(lines);
        while (matcher.find()) {
            rates.put(matcher.group(1).strip(), Double.parseDouble(matcher.group(2)));
        }
        return rates;
    }

    static double rate(Map<String, Double> rates, String prefix) {
        return rates.entrySet().stream().filter(entry -> entry.getKey().startsWith(prefix)).map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no probe line starting '" + prefix + "' in " + rates));
    }
}
