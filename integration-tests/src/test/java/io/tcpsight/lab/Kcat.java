package io.tcpsight.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** kcat, librdkafka's command-line client from Debian: the lab's non-Java Kafka client. */
public final class Kcat {
    private Kcat() {}

    /**
     * A kcat consumer of the topic from its end, with these librdkafka settings (key=value, each a
     * -X), printing each record's offset.
     */
    public static LabProcess consumer(String name, String bootstrapServers, String topic, String... settings)
            throws IOException {
        return LabProcess.start(name, command(bootstrapServers, topic, "end", settings));
    }

    /**
     * A kcat consumer of the topic from its beginning on the lab's client side, printing only each
     * record's offset (the records themselves would fill the test's memory).
     */
    public static LabProcess readerFromStart(
            KernelLab lab, String name, String bootstrapServers, String topic, String... settings) throws IOException {
        return lab.execInClient(name, command(bootstrapServers, topic, "beginning", settings));
    }

    private static List<String> command(String bootstrapServers, String topic, String offset, String... settings) {
        LabPrerequisites.requireCommand("kcat", "kcat, a librdkafka client (apt-get install kcat)");
        List<String> command =
                new ArrayList<>(List.of("kcat", "-C", "-q", "-b", bootstrapServers, "-t", topic, "-o", offset));
        for (String setting : settings) {
            command.add("-X");
            command.add(setting);
        }
        // each record's offset, not the record: twenty consumers printed 31 MB of records each
        command.addAll(List.of("-f", "%o\\n"));
        return command;
    }
}
