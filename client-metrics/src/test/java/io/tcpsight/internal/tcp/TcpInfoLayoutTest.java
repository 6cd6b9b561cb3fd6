package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TcpInfoLayoutTest {
    private static final Set<TcpInfoField> BIT_FIELDS = EnumSet.of(
            TcpInfoField.SND_WSCALE,
            TcpInfoField.RCV_WSCALE,
            TcpInfoField.DELIVERY_RATE_APP_LIMITED,
            TcpInfoField.FASTOPEN_CLIENT_FAIL);

    /** Every field the installed kernel header declares sits at the offset and size the Java layout uses. */
    @Test
    void layoutMatchesTheInstalledKernelHeader(@TempDir Path work) throws Exception {
        String header =
                new String(Files.readAllBytes(Paths.get("/usr/include/linux/tcp.h")), StandardCharsets.US_ASCII);
        StringBuilder program = new StringBuilder(
                "#include <stdio.h>\n#include <stddef.h>\n#include <linux/tcp.h>\nint main(void) {\n");
        int declared = 0;
        for (TcpInfoField field : TcpInfoField.values()) {
            if (!BIT_FIELDS.contains(field) && header.matches("(?s).*\\b" + field.kernelName() + "\\b.*")) {
                program.append(String.format(
                        "  printf(\"%1$s %%zu %%zu\\n\", offsetof(struct tcp_info, %1$s), "
                                + "sizeof(((struct tcp_info *) 0)->%1$s));%n",
                        field.kernelName()));
                declared++;
            }
        }
        program.append("  return 0;\n}\n");
        assertTrue(declared >= 50, "the header declares " + declared + " fields");
        Path source = work.resolve("layout.c");
        Files.write(source, program.toString().getBytes(StandardCharsets.US_ASCII));
        String compiled = run(work, "gcc", "-o", "layout", "layout.c");
        assertEquals("", compiled);
        Map<String, int[]> actual = new HashMap<>();
        for (String line : run(work, "./layout").split("\n")) {
            String[] parts = line.split(" ");
            actual.put(parts[0], new int[] {Integer.parseInt(parts[1]), Integer.parseInt(parts[2])});
        }
        assertEquals(declared, actual.size());
        for (TcpInfoField field : TcpInfoField.values()) {
            int[] offsetAndSize = actual.get(field.kernelName());
            if (offsetAndSize != null) {
                assertEquals(offsetAndSize[0], field.offset(), field.kernelName() + " offset");
                assertEquals(offsetAndSize[0] + offsetAndSize[1], field.end(), field.kernelName() + " size");
            }
        }
    }

    @Test
    void fieldsBeyondWhatTheKernelFilledAreAbsentNotZero() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            int fd = TcpSockets.fileDescriptor(loopback.connectPair(0));
            byte[] raw = new byte[NativeTcp.INFO_CAPACITY];
            int filled = NativeTcp.tcpInfo(fd, raw);
            assertTrue(filled >= TcpInfoField.RCV_WND.end(), "this kernel fills " + filled + " bytes");

            // As a 5.4 to 6.1 kernel returns it: snd_wnd present, rcv_wnd and later absent.
            TcpInfo older = TcpInfo.of(raw, TcpInfoField.SND_WND.end());
            assertTrue(older.sndWindowBytes().isPresent());
            assertTrue(older.sndWindowBytes().getAsLong() > 0);
            assertFalse(older.rcvWindowBytes().isPresent());
            assertFalse(older.has(TcpInfoField.TOTAL_RTO));
            assertFalse(older.toMap().containsKey("tcpi_rcv_wnd"));
            assertTrue(older.toMap().containsKey("tcpi_snd_wnd"));

            TcpInfo full = TcpInfo.of(raw, filled);
            assertTrue(full.rcvWindowBytes().isPresent());
            assertEquals(older.sndWindowBytes(), full.sndWindowBytes());

            assertThrows(IllegalArgumentException.class, () -> TcpInfo.of(raw, TcpInfo.MINIMUM_LENGTH - 1));
        }
    }

    @Test
    void unlimitedPacingRateSaturatesInsteadOfTurningNegative() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            TcpInfo info = TcpSockets.tcpInfo(loopback.connectPair(0));
            assertTrue(info.get(TcpInfoField.MAX_PACING_RATE).getAsLong() >= 0);
        }
    }

    private static String run(Path directory, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), String.join(" ", command) + ": " + output);
        return output;
    }
}
