package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.host.MalformedProcFileException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcNetTcpTest {
    private static final String HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

    @Test
    void parsesAFileCapturedOnALinuxHost() throws Exception {
        String text;
        try (InputStream in = getClass().getResourceAsStream("/proc/net-tcp.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        Map<Long, ProcNetTcp.Entry> entries = ProcNetTcp.parse(text, "net-tcp.txt");
        // 8 sockets, one of them an orphan in FIN_WAIT2 with inode 0, which no process holds.
        assertEquals(7, entries.size());
        assertEquals(
                2,
                entries.values().stream()
                        .filter(entry -> entry.state == TcpState.LISTEN)
                        .count());
        assertEquals(TcpState.CLOSE_WAIT, entries.get(11315L).state);
        assertEquals(new InetSocketAddress("127.0.0.1", 0x8127), entries.get(11311L).local);
        assertTrue(entries.values().stream().anyMatch(entry -> entry.state == TcpState.LISTEN));
    }

    @Test
    void parsesThisHostsLiveTables() throws Exception {
        for (String table : new String[] {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
            ProcNetTcp.parse(new String(Files.readAllBytes(Paths.get(table)), StandardCharsets.US_ASCII), table);
        }
    }

    @Test
    void aLineWithTooFewColumnsIsNamedByNumber() {
        MalformedProcFileException failure = assertThrows(
                MalformedProcFileException.class,
                () -> ProcNetTcp.parse(HEADER + "   0: 0100007F:1F90 00000000:0000 0A\n", "tcp"));
        assertEquals("tcp line 2: has 4 columns, expected at least 10", failure.getMessage());
    }

    @Test
    void badAddressesAndStatesAreRejectedWithTheReason() {
        String rest = " 00000000:00000000 00:00000000 00000000     0        0 4242 1\n";
        assertThrows(
                MalformedProcFileException.class,
                () -> ProcNetTcp.parse(HEADER + "0: 7F:1F90 00000000:0000 0A" + rest, "tcp"));
        assertThrows(
                MalformedProcFileException.class,
                () -> ProcNetTcp.parse(HEADER + "0: 0100007F 00000000:0000 0A" + rest, "tcp"));
        assertThrows(
                MalformedProcFileException.class,
                () -> ProcNetTcp.parse(HEADER + "0: 0100007F:ZZ 00000000:0000 0A" + rest, "tcp"));
        assertThrows(
                MalformedProcFileException.class,
                () -> ProcNetTcp.parse(HEADER + "0: 0100007F:1F90 00000000:0000 XY" + rest, "tcp"));
        Map<Long, ProcNetTcp.Entry> good = ProcNetTcp.parse(HEADER + "0: 0100007F:1F90 00000000:0000 0A" + rest, "tcp");
        assertEquals(new InetSocketAddress("127.0.0.1", 8080), good.get(4242L).local);
        assertEquals(TcpState.LISTEN, good.get(4242L).state);
    }

    @Test
    void anEmptyTableHasNoSockets() {
        assertTrue(ProcNetTcp.parse(HEADER, "tcp").isEmpty());
        assertTrue(ProcNetTcp.parse("", "tcp").isEmpty());
    }
}
