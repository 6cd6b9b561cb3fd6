package io.tcpsight.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Class data sharing for the lab's Kafka broker and Connect worker JVMs (docs/lab.md, "Where the
 * CPU goes"): most of a short-lived Kafka JVM's CPU is its start, and most of a start is loading
 * and linking classes. The first time a test asks for such a JVM of Kafka 4.3.1, one broker and one
 * worker are started aside on loopback, each writing the classes it loaded into an archive when it
 * stops; every later one maps them. Until the archives are there, and wherever they fail, JVMs start
 * as they would without: no claim depends on whether a JVM maps it (the writing adds two JVM starts
 * beside the suite's first classes, which share the host anyway).
 *
 * <p>Only JVMs on this JVM's own runtime, with the tcpsight agent from their start or without it.
 * The agent defines its hooks in the boot loader without touching the boot class path, which would
 * make the JVM warn that sharing is then only for boot classes (tests read JVM output for warnings).
 * It rewrites four concrete Kafka classes as they load, so those load from their jars, no archived
 * lambda class implements them (JDK-8323950 is an agent rewriting such an interface), and none is
 * looked up for them (HotSpot looks one up only for an archived caller).
 * A broker an agent is attached to later starts without the archive
 * ({@link KafkaBroker.Builder#withoutSharedClasses()}): the attach rewrites archived classes in
 * place, and OpenJDK 17.0.15 once crashed there, loading an archived lambda class
 * ({@code SystemDictionary::load_shared_lambda_proxy_class}). Logging of the archive itself is off,
 * so a test sees the same output either way.
 */
final class SharedClasses {
    /** What a Kafka JVM of the lab runs: the archive is of the classes one such start loads. */
    enum Kind {
        BROKER,
        CONNECT_WORKER
    }

    private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    private static final Map<Kind, Path> READY = new ConcurrentHashMap<>();
    private static final AtomicBoolean WRITING = new AtomicBoolean();

    private SharedClasses() {}

    /**
     * The JVM options that map the archive of this kind of Kafka JVM, or none: for a JVM on this
     * runtime, of the lab's main Kafka release. The first call starts writing
     * the archives, aside, and returns none.
     */
    static List<String> options(Kind kind, KafkaBroker.Version version, Path javaHome) {
        if (version != KafkaBroker.Version.V4_3 || !isThisRuntime(javaHome)) {
            return List.of();
        }
        // the suite's first Kafka JVM starts the writing: the sooner it ends, the more JVMs map it
        if (WRITING.compareAndSet(false, true)) {
            Thread writer = new Thread(SharedClasses::writeArchives, "lab-class-data-archives");
            writer.setDaemon(true);
            // a run that ends while the archives are written leaves no broker or worker behind
            Runtime.getRuntime().addShutdownHook(new Thread(SharedClasses::killWriters, "lab-class-data-cleanup"));
            writer.start();
        }
        Path archive = READY.get(kind);
        if (archive == null) {
            return List.of();
        }
        List<String> options = new ArrayList<>(QUIET);
        options.add("-XX:SharedArchiveFile=" + archive);
        return options;
    }

    private static boolean isThisRuntime(Path javaHome) {
        try {
            return Runtime.version().feature() >= 13 // archives written at exit: JDK 13 on
                    && javaHome.toRealPath()
                            .equals(Path.of(System.getProperty("java.home")).toRealPath());
        } catch (IOException unknown) {
            return false;
        }
    }

    /**
     * Starts a broker and a worker against it on loopback, each with -XX:ArchiveClassesAtExit, stops
     * them as an operator would (SIGTERM, which writes the archive), checks that each archive maps, and
     * only then makes it the one later JVMs use: a JVM that maps a cut archive crashes.
     */
    private static void writeArchives() {
        long start = System.nanoTime();
        try {
            Path directory = Files.createDirectories(LabPaths.work().resolve("class-data"));
            Path brokerArchive = directory.resolve("kafka-broker.jsa");
            Path workerArchive = directory.resolve("kafka-connect-worker.jsa");
            // C1 alone and the serial collector: the classes a start loads are the same, and it costs less CPU
            KafkaBroker broker = KafkaBroker.onLoopback()
                    .withoutSharedClasses()
                    .shortLivedJvm()
                    .jvmOptions(writing(brokerArchive))
                    .start();
            try {
                List<String> workerOptions = new ArrayList<>(LabJvm.SHORT_LIVED);
                workerOptions.addAll(writing(workerArchive));
                try (LabProcess worker = LabConnectWorker.startForArchive(broker, workerOptions)) {
                    stop(worker);
                }
            } finally {
                stop(broker.process());
            }
            publish(brokerArchive, Kind.BROKER);
            publish(workerArchive, Kind.CONNECT_WORKER);
            System.out.printf(
                    "class data sharing: the lab's Kafka broker and Connect worker archives written in %.1f s%n",
                    (System.nanoTime() - start) / 1e9);
        } catch (IOException | RuntimeException | AssertionError | InterruptedException failure) {
            // one line, and the lab goes on without: a JVM that maps no archive starts as it always did
            System.out.println("class data sharing off for the lab's Kafka JVMs: " + failure);
        }
    }

    private static void killWriters() {
        ProcessHandle.current()
                .descendants()
                .filter(process -> process.info()
                        .arguments()
                        .map(arguments -> String.join(" ", arguments).contains("-XX:ArchiveClassesAtExit="))
                        .orElse(false))
                .forEach(ProcessHandle::destroyForcibly);
    }

    /** Options that write this archive at exit, under a name no JVM maps until {@link #publish} checks it. */
    private static List<String> writing(Path archive) {
        List<String> options = new ArrayList<>(QUIET);
        options.add("-XX:ArchiveClassesAtExit=" + whileWritten(archive));
        return options;
    }

    private static Path whileWritten(Path archive) {
        return archive.resolveSibling(archive.getFileName() + ".writing");
    }

    private static void stop(LabProcess process) throws InterruptedException {
        process.process().destroy();
        if (!process.process().waitFor(60, TimeUnit.SECONDS)) {
            process.kill();
            throw new IllegalStateException("a Kafka JVM writing its class archive did not stop within 60 s");
        }
    }

    private static void publish(Path archive, Kind kind) throws IOException, InterruptedException {
        Path writing = whileWritten(archive);
        if (!Files.isRegularFile(writing)) {
            throw new IllegalStateException("no archive at " + writing);
        }
        // maps it as a Kafka JVM would (its class path), and must: -Xshare:on fails where it would not map
        List<String> check = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:on"));
        check.addAll(QUIET);
        check.addAll(List.of("-XX:SharedArchiveFile=" + writing, "-cp", LabPaths.kafkaLib() + "/*", "-version"));
        try (LabProcess mapping = LabProcess.start("class-data-check-" + kind, check)) {
            int exit = mapping.awaitExit(Duration.ofSeconds(60));
            if (exit != 0) {
                throw new IllegalStateException(
                        "the archive " + writing + " does not map (exit " + exit + "): " + mapping.output());
            }
        }
        Files.move(writing, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        READY.put(kind, archive);
    }
}
