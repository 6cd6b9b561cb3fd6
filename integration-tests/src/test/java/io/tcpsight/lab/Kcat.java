package io.tcpsight.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** kcat, librdkafka's command-line client from Debian: the lab's non-Java Kafka client. */
public final class Kcat {
    private Kcat() {}

    /**
     * A kcat consumer of the topic from its end, with these librdkafka settings (key=value, each a
     * -X), printing each record's offset: twenty of them printed 31 MB of records each.
     */
    public static LabProcess consumer(String name, String bootstrapServers, String topic, String... settings)
            throws IOException {
        List<String> command = command(bootstrapServers, topic, "end", settings);
        command.addAll(List.of("-f", "%o\\n"));
        return LabProcess.start(name, command);
    }

    /**
     * A kcat consumer of the topic from its beginning on the lab's client side, printing only each
     * record's offset (the records themselves would fill the test's memory).
     */
    public static LabProcess readerFromStart(
            KernelLab lab, String name, String bootstrapServers, String topic, String... settings) throws IOException {
        List<String> command = command(bootstrapServers, topic, "beginning", settings);
        command.addAll(List.of("-f", "%o\\n"));
        return lab.execInClient(name, command);
    }

    private static List<String> command(String bootstrapServers, String topic, String offset, String... settings) {
        LabPrerequisites.requireCommand("kcat", "kcat, a librdkafka client (apt-get install kcat)");
        List<String> command =
                new ArrayList<>(List.of("kcat", "-C", "-q", "-b", bootstrapServers, "-t", topic, "-o", offset));
        for (String setting : settings) {
            command.add("-X");
            command.add(setting);
        }
        return command;
    }
}
