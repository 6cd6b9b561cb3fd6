package io.tcpsight.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

/**
 * The lab's images. Kafka and Connect images are built from docker/*.Dockerfile and the
 * Maven-resolved Kafka jars, tagged by a hash of their inputs, so they are built once per change
 * and reused on a reused machine. Nothing is pulled.
 */
public final class LabImages {
    public static final DockerImageName TOXIPROXY = DockerImageName.parse("tcpsight-lab/toxiproxy:2.12.0")
            .asCompatibleSubstituteFor("ghcr.io/shopify/toxiproxy");

    private LabImages() {}

    public static synchronized String kafka() {
        return build("kafka", "kafka.Dockerfile", "kafka-broker.sh");
    }

    public static synchronized String connect() {
        return build("connect", "connect.Dockerfile", "connect-worker.sh");
    }

    private static String build(String name, String dockerfile, String script) {
        LabPrerequisites.requireContainerLab();
        LabPrerequisites.requireKafkaRuntime();
        try {
            Path context = Files.createDirectories(LabPaths.work().resolve("image-" + name));
            Path lib = Files.createDirectories(context.resolve("lib"));
            List<Path> jars;
            try (Stream<Path> files = Files.list(LabPaths.kafkaLib())) {
                jars = files.filter(file -> file.toString().endsWith(".jar"))
                        .sorted()
                        .collect(Collectors.toList());
            }
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(LabPaths.baseImage().getBytes(StandardCharsets.UTF_8));
            for (String file : new String[] {dockerfile, script, "log4j2.properties"}) {
                byte[] content = Files.readAllBytes(LabPaths.dockerFiles().resolve(file));
                digest.update(content);
                Files.write(context.resolve(file.equals(dockerfile) ? "Dockerfile" : file), content);
            }
            for (Path jar : jars) {
                digest.update(jar.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                Path target = lib.resolve(jar.getFileName());
                if (!Files.exists(target)) {
                    Files.copy(jar, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
            StringBuilder hash = new StringBuilder();
            for (byte b : digest.digest()) {
                hash.append(String.format("%02x", b));
            }
            String tag = "tcpsight-lab/" + name + ":" + hash.substring(0, 12);
            boolean present = !DockerClientFactory.instance()
                    .client()
                    .listImagesCmd()
                    .withImageNameFilter(tag)
                    .exec()
                    .isEmpty();
            if (!present) {
                new ImageFromDockerfile(tag, false)
                        .withFileFromPath(".", context)
                        .withBuildArg("BASE_IMAGE", LabPaths.baseImage())
                        .get();
            }
            return tag;
        } catch (IOException failure) {
            throw new UncheckedIOException(failure);
        } catch (NoSuchAlgorithmException failure) {
            throw new IllegalStateException("building the " + name + " image failed", failure);
        }
    }
}
