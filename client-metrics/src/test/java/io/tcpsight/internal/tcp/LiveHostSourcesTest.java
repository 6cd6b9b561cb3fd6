package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpsight.internal.host.HostCounters;
import io.tcpsight.internal.model.HostSignals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** This host's CPU time and this process's, as a round reads them: two readings around a busy spin. */
class LiveHostSourcesTest {
    @Test
    void theHostsAndThisProcesssCpuTimeAndItsThreadsWaitsAreRead() throws InterruptedException {
        assumeTrue(Files.isReadable(Path.of("/proc/stat")), "no /proc/stat: not Linux");
        LiveHostSources sources = new LiveHostSources();
        List<String> unreadable = new ArrayList<>();
        AtomicLong spun = new AtomicLong();
        AtomicBoolean spin = new AtomicBoolean(true);
        Thread spinner = new Thread(() -> {
            long spins = 0;
            while (spin.get()) {
                spins++;
            }
            spun.set(spins);
        });
        long started = System.nanoTime();
        HostCounters before = HostCounters.read(sources, unreadable::add);
        spinner.start();
        Thread.sleep(200);
        spin.set(false);
        spinner.join();
        HostSignals.Cpu cpu = HostCounters.read(sources, unreadable::add)
                .since(before)
                .cpu()
                .orElseThrow(() -> new AssertionError("no CPU shares from two readings 0.2 s apart"));
        assertTrue(cpu.cores() >= 1, "cores " + cpu.cores());
        double share = cpu.processShare().orElseThrow();
        // one thread of this process spinning for the whole 0.2 s while the reading one slept: a tenth of one CPU's
        // time even on a host busy beside it, and about one CPU's, not the process's every thread (a clock read in the
        // wrong unit is a thousandth of that, or all of it)
        assertTrue(share > 0.1 / cpu.cores(), "this process's share " + share + " after " + spun.get() + " spins");
        if (cpu.cores() >= 2) {
            assertTrue(share <= 1.0 / cpu.cores() + 0.2, "this process's share " + share + ": one spinning thread");
        }
        // /proc/stat counts in ticks of 1/100 s: each CPU's idle count is cut short at both readings, which may
        // move the idle share by up to one tick a CPU over all the CPUs' ticks (5 % over 0.2 s, whatever the CPUs; the
        // process's time is read in nanoseconds): idle 0.487 beside a share above 0.513 was read once
        double tick = 1 / (100 * (System.nanoTime() - started) / 1e9);
        assertTrue(
                cpu.idleShare() >= 0 && cpu.idleShare() <= 1 - share + tick,
                "idle " + cpu.idleShare() + ", this process " + share + ", a tick's share " + tick);
        assertEquals(List.of(), unreadable);
        Map<Long, Long> waits = sources.threadWaits().orElseThrow();
        assertTrue(waits.size() >= 2, "this JVM's threads: " + waits.size());
    }
}
