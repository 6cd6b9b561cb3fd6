package io.tcpsight.internal.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * /proc/net/softnet_stat summed over CPUs: packets the receive backlog dropped (second column,
 * {@code net.core.netdev_max_backlog} full) and times the softirq ran out of budget with work
 * left (third column, {@code net.core.netdev_budget}).
 */
public final class SoftnetStat {
    private final long dropped;
    private final long squeezed;

    public SoftnetStat(long dropped, long squeezed) {
        this.dropped = dropped;
        this.squeezed = squeezed;
    }

    public long dropped() {
        return dropped;
    }

    public long squeezed() {
        return squeezed;
    }

    public static Optional<SoftnetStat> read(Path file) {
        try {
            return Optional.of(parse(Files.readAllLines(file, StandardCharsets.US_ASCII)));
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    static SoftnetStat parse(List<String> lines) {
        long dropped = 0;
        long squeezed = 0;
        for (String line : lines) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length >= 3) {
                dropped += Long.parseLong(columns[1], 16);
                squeezed += Long.parseLong(columns[2], 16);
            }
        }
        return new SoftnetStat(dropped, squeezed);
    }
}
