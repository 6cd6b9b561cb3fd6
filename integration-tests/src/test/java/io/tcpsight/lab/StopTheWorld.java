package io.tcpsight.lab;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM's stop-the-world pauses from its safepoint log ({@code -Xlog:safepoint=info:file=...}): the
 * time every Java thread of it was held, the acceptor of a broker among them.
 */
public final class StopTheWorld {
    /** JDK 17's line: {@code Safepoint "G1CollectForAllocation", Time since last: ..., Total: 2345678 ns}. */
    private static final Pattern TOTAL = Pattern.compile("Safepoint \\\"(\\w+)\\\".*Total: (\\d+) ns");

    private StopTheWorld() {}

    /** The pauses logged after {@code offset} bytes of the log: how many, the longest (and why) and their sum. */
    public static String since(Path log, long offset) {
        int count = 0;
        long longest = 0;
        long sum = 0;
        String longestWhy = "";
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            file.seek(offset);
            byte[] rest = new byte[(int) Math.max(0, file.length() - offset)];
            file.readFully(rest);
            Matcher pause = TOTAL.matcher(new String(rest, StandardCharsets.UTF_8));
            while (pause.find()) {
                long nanos = Long.parseLong(pause.group(2));
                count++;
                sum += nanos;
                if (nanos > longest) {
                    longest = nanos;
                    longestWhy = pause.group(1);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return "stopped for an unknown time (" + unreadable + ")";
        }
        return String.format(
                "stopped %d times, at most %.1f ms (%s), %.1f ms in all", count, longest / 1e6, longestWhy, sum / 1e6);
    }
}
