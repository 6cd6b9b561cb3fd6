package io.tcpsight.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a lab JVM holds on its heap, read with jcmd. */
public final class LabHeap {
    private final long pid;
    private final String histogram;

    private LabHeap(long pid, String histogram) {
        this.pid = pid;
        this.histogram = histogram;
    }

    /** One class histogram of the process's heap, after a full GC (GC.class_histogram collects first). */
    public static LabHeap read(LabProcess process) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process histogram = new ProcessBuilder(jcmd, Long.toString(process.pid()), "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String output = new String(histogram.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        histogram.waitFor();
        return new LabHeap(process.pid(), output);
    }

    /**
     * Live instances of a class after a full GC. A class that is not in the histogram at all fails:
     * a renamed class must not make a heap check pass.
     */
    public static long liveInstances(LabProcess process, String className) throws IOException, InterruptedException {
        return read(process).instances(className);
    }

    /** Bytes of live objects after a full GC, from the histogram's total line. */
    public static long liveBytes(LabProcess process) throws IOException, InterruptedException {
        return read(process).bytes();
    }

    /** Live instances of the class in this histogram; a class not in it fails. */
    public long instances(String className) {
        Matcher matcher = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+" + Pattern.quote(className) + "$")
                .matcher(histogram);
        if (!matcher.find()) {
            throw new AssertionError("no " + className + " in the heap of pid " + pid + ":\n"
                    + histogram.substring(0, Math.min(histogram.length(), 3000)));
        }
        return Long.parseLong(matcher.group(1));
    }

    /** Bytes of live objects in this histogram (its total line). */
    public long bytes() {
        Matcher total = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)$").matcher(histogram);
        if (!total.find()) {
            throw new AssertionError("no Total line in the heap histogram of pid " + pid);
        }
        return Long.parseLong(total.group(1));
    }
}
