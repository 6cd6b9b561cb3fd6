package io.tcpsight.lab;

import java.util.List;
import java.util.stream.Collectors;

/**
 * HotSpot's own warnings in a JVM's output ({@code OpenJDK 64-Bit Server VM warning: ...}), which
 * unified logging's switches do not silence: the one an agent causes by appending to the boot class
 * path ("Sharing is only supported for boot loader classes ...") among them.
 */
public final class JvmWarnings {
    private JvmWarnings() {}

    public static List<String> ofHotSpot(String output) {
        return output.lines().filter(line -> line.contains(" VM warning: ")).collect(Collectors.toList());
    }
}
