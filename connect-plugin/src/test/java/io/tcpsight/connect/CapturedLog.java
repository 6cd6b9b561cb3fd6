package io.tcpsight.connect;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the plugin logged while a piece of code ran: slf4j-simple, the tests' binding, writes each
 * line to whatever System.err is at the time, so the stream is teed for the duration.
 */
final class CapturedLog {
    private CapturedLog() {}

    static synchronized String during(Runnable code) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        captured.write(b);
                        original.write(b);
                    }

                    @Override
                    public void write(byte[] bytes, int offset, int length) {
                        captured.write(bytes, offset, length);
                        original.write(bytes, offset, length);
                    }
                },
                true,
                StandardCharsets.UTF_8);
        System.setErr(tee);
        try {
            code.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    /** The lines that contain this text. */
    static List<String> lines(String log, String text) {
        return log.lines().filter(line -> line.contains(text)).collect(Collectors.toList());
    }
}
