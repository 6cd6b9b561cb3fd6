package io.tcpsight.internal.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs iproute2's ss on the same sockets a test holds, for an independent reading of the kernel. */
final class SsOutput {
    final String[] header;
    final List<String> words = new ArrayList<>();
    final Map<String, String> values = new HashMap<>();

    private SsOutput(String headerLine, String infoLine) {
        header = headerLine.trim().split("\\s+");
        for (String token : header) {
            if (token.startsWith("ino:")) {
                values.put("ino", token.substring("ino:".length()));
            }
        }
        for (String token : infoLine.trim().split("\\s+")) {
            int colon = token.indexOf(':');
            if (colon > 0) {
                values.put(token.substring(0, colon), token.substring(colon + 1));
            } else {
                words.add(token);
            }
        }
    }

    static String run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("ss");
        command.addAll(Arrays.asList(args));
        // stderr apart: ss -e warns there ("Failed to find cgroup2 mount"), and a warning is not output
        Process process = new ProcessBuilder(command).start();
        String output;
        String errors;
        try (InputStream in = process.getInputStream();
                InputStream err = process.getErrorStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            errors = new String(err.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (process.waitFor() != 0) {
            throw new IOException("ss " + String.join(" ", args) + " failed: " + output + errors);
        }
        return output;
    }

    /** The established connection from local to remote, with its info line (ss -tieH). */
    static SsOutput connection(InetSocketAddress local, InetSocketAddress remote)
            throws IOException, InterruptedException {
        String output = run("-tieH", "src", endpoint(local), "dst", endpoint(remote));
        String[] lines = output.split("\n");
        if (lines.length < 2) {
            throw new AssertionError("ss found no connection " + local + " -> " + remote + ": " + output);
        }
        return new SsOutput(lines[0], lines[1]);
    }

    private static String endpoint(InetSocketAddress address) {
        return address.getAddress().getHostAddress() + ":" + address.getPort();
    }

    long micros(String key) {
        return Math.round(Double.parseDouble(values.get(key).split("/")[0]) * 1000);
    }

    long number(String key) {
        return Long.parseLong(values.get(key));
    }

    int[] windowScales() {
        String[] parts = values.get("wscale").split(",");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    }
}
