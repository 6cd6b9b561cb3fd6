package io.tcpsight.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The reporter on the class path the docs give it: tcpsight's classes beside kafka-clients and
 * SLF4J, and no Micrometer. Each test loads the reporter in a class loader of exactly those
 * locations (its parent the platform loader, so the build's Micrometer cannot leak in) and drives
 * it as Kafka does, by reflection. ShippedClassPathLabIT does the same with real clients.
 */
class ReporterClassPathTest {
    private static final String METER_BINDER = "io.micrometer.core.instrument.binder.MeterBinder";

    private final List<String> logged = new CopyOnWriteArrayList<>();

    @Test
    void withoutMicrometerTheReporterRuns() throws Exception {
        try (URLClassLoader loader = kafkaClientsAlone()) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(METER_BINDER, false, loader));
            Object reporter = run(loader, Map.of());
            assertTrue(monitor(reporter).isPresent(), "the reporter did not start: " + logged);
            assertTrue(logged.stream().noneMatch(line -> line.contains("is off")), logged.toString());
            close(reporter);
        }
    }

    @Test
    void otlpAskedForWithoutMicrometerIsOneLineNamingTheArtifactsAndTheRestRuns() throws Exception {
        try (URLClassLoader loader = kafkaClientsAlone()) {
            Object reporter = run(loader, Map.of("tcpsight.otlp.enabled", "true"));
            assertTrue(monitor(reporter).isPresent(), "the reporter did not start: " + logged);
            List<String> otlp = otlpLines();
            assertEquals(1, otlp.size(), logged.toString());
            assertTrue(otlp.get(0).contains("io.micrometer:micrometer-core"), otlp.get(0));
            assertTrue(otlp.get(0).contains("io.micrometer:micrometer-registry-otlp"), otlp.get(0));
            assertTrue(otlp.get(0).contains("No OTLP push; the rest runs"), otlp.get(0));
            close(reporter);
        }
    }

    /** A micrometer-core whose MeterBinder is not a class file at all: it does not link, and nothing fails. */
    @Test
    void aBrokenMicrometerOnThePathCostsTheOtlpPushAndNothingElse(@TempDir Path directory) throws Exception {
        Path broken = directory.resolve("micrometer-core-1.17.2.jar");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(broken))) {
            jar.putNextEntry(new JarEntry(METER_BINDER.replace('.', '/') + ".class"));
            jar.write("not a class file".getBytes(StandardCharsets.US_ASCII));
            jar.closeEntry();
        }
        try (URLClassLoader loader = kafkaClientsAlone(broken.toUri().toURL())) {
            assertThrows(ClassFormatError.class, () -> Class.forName(METER_BINDER, false, loader));
            Object reporter = run(loader, Map.of("tcpsight.otlp.enabled", "true"));
            assertTrue(monitor(reporter).isPresent(), "the reporter did not start: " + logged);
            List<String> otlp = otlpLines();
            assertEquals(1, otlp.size(), logged.toString());
            assertTrue(otlp.get(0).contains("io.micrometer:micrometer-core (java.lang.ClassFormatError"), otlp.get(0));
            close(reporter);
        }
    }

    /** Any throw from tcpsight's side, here a LinkageError in init, turns the reporter off in one line. */
    @Test
    void aLinkageErrorInAnyStepIsOneLineAndTheClientGoesOn() throws Exception {
        // the same class path without tcpsight's runtime package: init's first use of it cannot link
        try (URLClassLoader loader = new HidingLoader(kafkaClientsAlone(), "io.tcpsight.internal.runtime.")) {
            Object reporter = run(loader, Map.of());
            assertTrue(monitor(reporter).isEmpty(), "off after init failed");
            // a call after that never reaches the reporter: ClientReporter.metricChange(null) would throw, a second
            // line
            Class<?> type = reporter.getClass();
            type.getMethod("metricChange", kafkaMetricType(loader)).invoke(reporter, new Object[] {null});
            close(reporter);
            List<String> off = new ArrayList<>();
            logged.stream().filter(line -> line.contains("is off")).forEach(off::add);
            assertEquals(1, off.size(), logged.toString());
            assertTrue(off.get(0).contains("init failed: java.lang.NoClassDefFoundError"), off.get(0));
            assertTrue(off.get(0)
                    .contains("remove " + TcpsightMetricsReporter.class.getName() + " from metric.reporters"));
        }
    }

    /** The reporter's own class does not link: configure() says so in one line, and nothing else happens. */
    @Test
    void aReporterThatCannotBeMadeIsOneLineAtConfigure() throws Exception {
        try (URLClassLoader loader =
                new HidingLoader(kafkaClientsAlone(), "io.tcpsight.internal.kafka.ClientReporter")) {
            Object reporter = run(loader, Map.of());
            assertTrue(monitor(reporter).isEmpty());
            close(reporter);
            assertEquals(1, logged.size(), logged.toString());
            assertTrue(logged.get(0).contains("configure failed: java.lang.NoClassDefFoundError"), logged.get(0));
        }
    }

    private List<String> otlpLines() {
        List<String> lines = new ArrayList<>();
        logged.stream().filter(line -> line.contains("tcpsight.otlp.enabled")).forEach(lines::add);
        return lines;
    }

    /** configure() and init() as Kafka calls them, the reporter logging into {@link #logged}. */
    private Object run(ClassLoader loader, Map<String, String> extra) throws Exception {
        Class<?> type = Class.forName(TcpsightMetricsReporter.class.getName(), true, loader);
        Constructor<?> withSinks = type.getDeclaredConstructor(Consumer.class, Consumer.class);
        withSinks.setAccessible(true);
        Consumer<String> sink = logged::add;
        Object reporter = withSinks.newInstance(sink, sink);
        Map<String, Object> config = new HashMap<>(Map.of(
                "client.id", "class-path-" + System.nanoTime(),
                "bootstrap.servers", "127.0.0.1:9",
                "tcpsight.sample.interval.ms", "60000"));
        config.putAll(extra);
        type.getMethod("configure", Map.class).invoke(reporter, config);
        type.getMethod("init", List.class).invoke(reporter, List.of());
        return reporter;
    }

    private static Class<?> kafkaMetricType(ClassLoader loader) throws ClassNotFoundException {
        return Class.forName(KafkaMetric.class.getName(), false, loader);
    }

    private static Optional<?> monitor(Object reporter) throws Exception {
        Method monitor = reporter.getClass().getDeclaredMethod("monitor");
        monitor.setAccessible(true); // package-private: no public signature names an internal type
        return (Optional<?>) monitor.invoke(reporter);
    }

    private static void close(Object reporter) throws Exception {
        reporter.getClass().getMethod("close").invoke(reporter);
    }

    /** tcpsight's classes, kafka-clients and SLF4J's API (where the build found them), and any extra jars. */
    private static URLClassLoader kafkaClientsAlone(URL... extra) {
        List<URL> path = new ArrayList<>(List.of(extra));
        path.add(location(TcpsightMetricsReporter.class));
        path.add(location(KafkaMetric.class));
        path.add(location(LoggerFactory.class));
        return new URLClassLoader(path.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    /** Its parent's classes but those under a prefix, which it says it cannot find. */
    private static final class HidingLoader extends URLClassLoader {
        private final URLClassLoader delegate;
        private final String hidden;

        HidingLoader(URLClassLoader delegate, String hidden) {
            super(delegate.getURLs(), ClassLoader.getPlatformClassLoader());
            this.delegate = delegate;
            this.hidden = hidden;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (name.startsWith(hidden)) {
                throw new ClassNotFoundException(name + " (hidden by the test)");
            }
            return super.findClass(name);
        }

        @Override
        public void close() throws IOException {
            super.close();
            delegate.close();
        }
    }
}
