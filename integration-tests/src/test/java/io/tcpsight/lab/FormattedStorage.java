package io.tcpsight.lab;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * A broker's KRaft storage, formatted by Kafka's own StorageTool once per release and copied for
 * every later broker of that release. A format is a JVM of its own (1-8 s on two busy cores, about
 * 90 a suite); a copy takes milliseconds.
 *
 * <p>Why a copy is that format: StorageTool writes the metadata log's bootstrap records (the
 * features of the release) and {@code meta.properties} (node id, cluster id, and from 3.7 a
 * directory id). Formatted twice with other node ids, cluster ids and voters, every release from
 * 3.6 to 4.4 wrote bootstrap records that differ only in their batches' timestamps and checksums
 * (docs/lab.md). So the records are copied and {@code meta.properties} is written for each broker,
 * with a directory id of its own. A config that sets anything else StorageTool reads is formatted
 * for itself.
 */
final class FormattedStorage {
    /**
     * Keys StorageTool reads besides the node id, the cluster id and the voters (measured not to
     * change what it writes), where a test's overrides set them: the storage's directories
     * (the lab writes one, log.dirs) and what sets its features.
     */
    private static final Set<String> FORMAT_INPUTS = Set.of(
            "process.roles",
            "log.dir",
            "log.dirs",
            "metadata.log.dir",
            "inter.broker.protocol.version",
            "unstable.metadata.versions.enable",
            "unstable.api.versions.enable",
            "unstable.feature.versions.enable",
            "controller.quorum.bootstrap.servers",
            "initial.controllers");

    private static final String META = "meta.properties";

    /**
     * Per runtime (its jars' directory): its formatted storage to copy, made by its first broker's
     * format. Two runtimes format at once (the version matrix), one runtime once.
     */
    private static final Map<Path, Template> TEMPLATES = new ConcurrentHashMap<>();

    private static final class Template {
        private Path directory;
    }

    private FormattedStorage() {}

    /** Formats the storage a runtime formats for itself: StorageTool's command, run as given. */
    interface Format {
        void run() throws IOException, InterruptedException;
    }

    /**
     * Fills {@code data} (the config's one log directory) as StorageTool would for this node and
     * cluster: by a copy of the runtime's first format, or by {@code format} where there is none
     * yet or the overrides set a key the format reads.
     */
    static void prepare(
            Path runtime, Map<String, String> overrides, Path data, String clusterId, int nodeId, Format format)
            throws IOException, InterruptedException {
        if (overrides.keySet().stream().anyMatch(FORMAT_INPUTS::contains)) {
            format.run();
            return;
        }
        Template template = TEMPLATES.computeIfAbsent(runtime, first -> new Template());
        Path records;
        synchronized (template) {
            if (template.directory == null) {
                format.run();
                Path formatted = Files.createTempDirectory(LabPaths.work(), "storage-template-");
                copyTree(data, formatted);
                template.directory = formatted;
                return;
            }
            records = template.directory;
        }
        copyAs(records, data, clusterId, nodeId);
    }

    /** The template's records, and its {@code meta.properties} with this node, cluster and a directory id of its own. */
    private static void copyAs(Path template, Path data, String clusterId, int nodeId) throws IOException {
        copyTree(template, data);
        Properties meta = new Properties();
        try (Reader in = Files.newBufferedReader(template.resolve(META))) {
            meta.load(in);
        }
        meta.setProperty("node.id", Integer.toString(nodeId));
        meta.setProperty("cluster.id", clusterId);
        if (meta.containsKey("directory.id")) {
            meta.setProperty("directory.id", Uuid.randomUuid().toString());
        }
        Path target = data.resolve(META);
        Files.deleteIfExists(target);
        try (Writer out = Files.newBufferedWriter(target)) {
            meta.store(out, null);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(from)) {
            paths = walk.toList();
        }
        for (Path path : paths) {
            Path target = to.resolve(from.relativize(path).toString());
            if (Files.isDirectory(path)) {
                Files.createDirectories(target);
            } else {
                Files.copy(path, target, StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
