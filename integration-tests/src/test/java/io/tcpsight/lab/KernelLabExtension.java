package io.tcpsight.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 access to the kernel lab. Checks the prerequisites once per class (skip outside CI,
 * fail in CI) and closes every lab a test started after it, passed or failed.
 *
 * <pre>
 * &#64;RegisterExtension static KernelLabExtension lab = new KernelLabExtension();
 * KafkaBroker broker = lab.kafkaBrokerBehind(Link.rtt(Duration.ofMillis(100)).rateMbit(200));
 * </pre>
 */
public final class KernelLabExtension implements BeforeAllCallback, AfterEachCallback {
    /**
     * By the thread that started them: a test's own threads start labs too (VersionMatrixLabIT's
     * releases), and each such thread closes its own ({@link #closeAll()}).
     */
    private final Map<Thread, List<KernelLab>> open = new HashMap<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        LabPrerequisites.requireKernelLab();
    }

    /** Starts a lab; it is closed after the current test. */
    public synchronized KernelLab start(KernelLab.Builder builder) throws IOException, InterruptedException {
        KernelLab lab = builder.start();
        open.computeIfAbsent(Thread.currentThread(), thread -> new ArrayList<>())
                .add(lab);
        return lab;
    }

    /** One line: a real broker this far away, clients in the test JVM. */
    public KafkaBroker kafkaBrokerBehind(Link link) throws IOException, InterruptedException {
        return KafkaBroker.start(start(KernelLab.builder().link(link)), Map.of());
    }

    /** The same with a {@link KafkaBroker.Builder#shortLivedJvm()} broker: for a class that claims no rate. */
    public KafkaBroker shortLivedKafkaBrokerBehind(Link link) throws IOException, InterruptedException {
        return KafkaBroker.inLab(start(KernelLab.builder().link(link)))
                .shortLivedJvm()
                .start();
    }

    /** The lab this test started last, for what its line measured ({@link KernelLab#idleLine()}). */
    public synchronized KernelLab latest() {
        List<KernelLab> mine = open.getOrDefault(Thread.currentThread(), List.of());
        if (mine.isEmpty()) {
            throw new IllegalStateException("this test has started no lab");
        }
        return mine.get(mine.size() - 1);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        closeAll();
    }

    /**
     * Closes every lab this test started so far (after each test; within a test that runs several
     * labs one after another).
     */
    public synchronized void closeAll() {
        // taken off first: a close that throws leaves no lab for this thread's next test to close and be blamed for
        List<KernelLab> mine = open.getOrDefault(Thread.currentThread(), List.of());
        open.remove(Thread.currentThread());
        for (int i = mine.size() - 1; i >= 0; i--) {
            KernelLab lab = mine.get(i);
            lab.close();
            System.out.println("[lab " + lab.serverNamespace() + ", " + lab.link() + "] delay line: "
                    + lab.delayLineStatistics().replace("ready\n", "").trim().replace("\n", "; "));
        }
    }
}
