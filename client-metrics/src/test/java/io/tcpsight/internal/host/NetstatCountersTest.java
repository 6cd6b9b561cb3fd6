package io.tcpsight.internal.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NetstatCountersTest {

    @Test
    void parsesAFileCapturedOnALinux618Host() throws Exception {
        String text;
        try (InputStream in = getClass().getResourceAsStream("/proc/netstat.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        NetstatCounters counters = NetstatCounters.parse(text, "netstat.txt");
        for (String name : new String[] {
            NetstatCounters.SYNCOOKIES_SENT,
            NetstatCounters.SYNCOOKIES_RECV,
            NetstatCounters.SYNCOOKIES_FAILED,
            NetstatCounters.LISTEN_OVERFLOWS,
            NetstatCounters.LISTEN_DROPS,
            NetstatCounters.REQ_QUEUE_FULL_DO_COOKIES,
            NetstatCounters.REQ_QUEUE_FULL_DROP,
            NetstatCounters.SYN_RETRANS
        }) {
            assertTrue(counters.tcpExt(name).isPresent(), name);
        }
        assertTrue(counters.section("TcpExt").size() > 100);
        assertFalse(counters.section("IpExt").isEmpty());
        assertFalse(counters.tcpExt("NoSuchCounter").isPresent());
    }

    @Test
    void readsThisNamespaceLive() throws Exception {
        assertTrue(
                NetstatCounters.read().tcpExt(NetstatCounters.LISTEN_OVERFLOWS).isPresent());
    }

    @Test
    void malformedInputNamesTheLineAndTheProblem() {
        assertEquals(
                "n line 2: TcpExt: has 2 names but 1 values",
                assertThrows(
                                MalformedProcFileException.class,
                                () -> NetstatCounters.parse("TcpExt: A B\nTcpExt: 1\n", "n"))
                        .getMessage());
        assertEquals(
                "n line 2: TcpExt:B has the value 'x', which is not a whole number",
                assertThrows(
                                MalformedProcFileException.class,
                                () -> NetstatCounters.parse("TcpExt: A B\nTcpExt: 1 x\n", "n"))
                        .getMessage());
        assertEquals(
                "n line 1: header line has no value line after it",
                assertThrows(MalformedProcFileException.class, () -> NetstatCounters.parse("TcpExt: A B\n", "n"))
                        .getMessage());
        assertEquals(
                "n line 1: expected a header and a value line of the same section, got 'TcpExt:' and 'IpExt:'",
                assertThrows(
                                MalformedProcFileException.class,
                                () -> NetstatCounters.parse("TcpExt: A\nIpExt: 1\n", "n"))
                        .getMessage());
        assertTrue(NetstatCounters.parse("", "n").section("TcpExt").isEmpty());
    }
}
