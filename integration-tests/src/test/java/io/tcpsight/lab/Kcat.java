package io.tcpsight.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** kcat, librdkafka's command-line client from Debian: the lab's non-Java Kafka client. */
public final class Kcat {
    private Kcat() {}

    /** A kcat consumer of the topic from its end, with these librdkafka settings (key=value, each a -X). */
    public static LabProcess consumer(String name, String bootstrapServers, String topic, String... settings)
            throws IOException {
        LabPrerequisites.requireCommand("kcat", "kcat, a librdkafka client (apt-get install kcat)");
        List<String> command =
                new ArrayList<>(List.of("kcat", "-C", "-q", "-b", bootstrapServers, "-t", topic, "-o", "end"));
        for (String setting : settings) {
            command.add("-X");
            command.add(setting);
        }
        return LabProcess.start(name, command);
    }
}
