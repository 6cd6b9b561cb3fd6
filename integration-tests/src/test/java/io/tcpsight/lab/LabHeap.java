package io.tcpsight.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a lab JVM holds on its heap, read with jcmd. */
public final class LabHeap {
    private LabHeap() {}

    /**
     * Live instances of a class after a full GC (GC.class_histogram collects first). A class that
     * is not in the histogram at all fails: a renamed class must not make a heap check pass.
     */
    public static long liveInstances(LabProcess process, String className) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process histogram = new ProcessBuilder(jcmd, Long.toString(process.pid()), "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String output = new String(histogram.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        histogram.waitFor();
        Matcher matcher = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+" + Pattern.quote(className) + "$")
                .matcher(output);
        if (!matcher.find()) {
            throw new AssertionError("no " + className + " in the heap of pid " + process.pid() + ":\n"
                    + output.substring(0, Math.min(output.length(), 3000)));
        }
        return Long.parseLong(matcher.group(1));
    }

    /** Bytes of live objects after a full GC, from the histogram's total line. */
    public static long liveBytes(LabProcess process) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process histogram = new ProcessBuilder(jcmd, Long.toString(process.pid()), "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String output = new String(histogram.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        histogram.waitFor();
        Matcher total = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)$").matcher(output);
        if (!total.find()) {
            throw new AssertionError("no Total line in the heap histogram of pid " + process.pid());
        }
        return Long.parseLong(total.group(1));
    }
}
