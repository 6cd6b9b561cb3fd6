package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpsight.internal.host.HostCounters;
import io.tcpsight.internal.model.HostSignals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** This host's CPU time and this process's, as a round reads them: two readings around a busy spin. */
class LiveHostSourcesTest {
    @Test
    void theHostsAndThisProcesssCpuTimeAndItsThreadsWaitsAreRead() {
        assumeTrue(Files.isReadable(Path.of("/proc/stat")), "no /proc/stat: not Linux");
        LiveHostSources sources = new LiveHostSources();
        List<String> unreadable = new ArrayList<>();
        HostCounters before = HostCounters.read(sources, unreadable::add);
        long spinUntil = System.nanoTime() + 200_000_000L;
        long spins = 0;
        while (System.nanoTime() < spinUntil) {
            spins++;
        }
        HostSignals.Cpu cpu = HostCounters.read(sources, unreadable::add)
                .since(before)
                .cpu()
                .orElseThrow(() -> new AssertionError("no CPU shares from two readings 0.2 s apart"));
        assertTrue(cpu.cores() >= 1, "cores " + cpu.cores());
        double share = cpu.processShare().orElseThrow();
        // a thread of this process spinning for the whole 0.2 s: a tenth of one CPU's time even on a host busy beside
        // it
        // (a clock read in the wrong unit is a thousandth of that, or all of it)
        assertTrue(share > 0.1 / cpu.cores() && share <= 1, "this process's share " + share + " after " + spins);
        assertTrue(cpu.idleShare() >= 0 && cpu.idleShare() <= 1 - share + 1e-9, "idle " + cpu.idleShare());
        Map<Long, Long> waits = sources.threadWaits().orElseThrow();
        assertTrue(waits.size() >= 2, "this JVM's threads: " + waits.size());
    }
}
