package io.tcpsight.agent.internal.listeners;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.tcp.ProcessSocket;
import io.tcpsight.internal.tcp.TcpState;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * When the listeners' census is taken again, and when the last one stands: a process whose
 * descriptors and listening sockets the test decides (the census over real descriptors is
 * ProcessSocketCensusTest's, and the lab's burst tests prove the listener findings).
 */
class ListenerCensusTest {
    private static final long SECOND = 1_000_000_000L;
    /** A listener's peer, as the census reads it. */
    private static final InetSocketAddress NO_PEER = new InetSocketAddress("0.0.0.0", 0);

    /** The process as the census and the checks see it: descriptor to its socket, and which listen. */
    private final Map<Integer, ProcessSocket> descriptors = new HashMap<>();

    private final Set<Integer> listening = new HashSet<>();
    private final ListenerCensus census = new ListenerCensus(
            () -> {
                List<ProcessSocket> found = new ArrayList<>();
                descriptors.forEach((fd, socket) -> {
                    if (listening.contains(fd)) {
                        found.add(socket);
                    }
                });
                return found;
            },
            fd -> descriptors.containsKey(fd)
                    ? OptionalLong.of(descriptors.get(fd).inode())
                    : OptionalLong.empty(),
            listening::contains);

    private ProcessSocket listen(int fd, long inode, int port) {
        ProcessSocket socket =
                new ProcessSocket(fd, inode, new InetSocketAddress("127.0.0.1", port), NO_PEER, TcpState.LISTEN);
        descriptors.put(fd, socket);
        listening.add(fd);
        return socket;
    }

    @Test
    void theFirstRoundTakesACensusAndLaterRoundsKeepItWhileNothingSaysOtherwise() throws Exception {
        ProcessSocket plain = listen(10, 100, 9092);
        assertEquals(List.of(plain), census.current(Set.of(), 0));
        for (int round = 1; round <= 100; round++) {
            assertEquals(List.of(plain), census.current(Set.of(9092), round * SECOND));
        }
        assertEquals(1, census.censuses(), "one census for a hundred rounds of the same listener");
        assertFalse(census.foundAfterFirstCensus(plain), "there before the agent watched");
    }

    @Test
    void aConnectionOnAPortNoListenerHasTakesACensusThatFindsTheNewListenerAsYoungerThanTheWatch() throws Exception {
        ProcessSocket plain = listen(10, 100, 9092);
        census.current(Set.of(), 0);
        ProcessSocket added = listen(11, 101, 9093); // a listener opened at run time: nothing shows it yet
        assertEquals(List.of(plain), census.current(Set.of(9092), SECOND));
        List<ProcessSocket> now = census.current(Set.of(9092, 9093), 2 * SECOND);
        assertTrue(now.contains(added) && now.contains(plain), now.toString());
        assertEquals(2, census.censuses());
        assertTrue(census.foundAfterFirstCensus(added), "opened while the agent watched");
        assertFalse(census.foundAfterFirstCensus(plain));
    }

    @Test
    void aListenerClosedOrItsDescriptorReusedTakesACensus() throws Exception {
        listen(10, 100, 9092);
        census.current(Set.of(), 0);
        descriptors.put(
                10,
                new ProcessSocket(
                        10,
                        200,
                        new InetSocketAddress("127.0.0.1", 9092),
                        new InetSocketAddress("127.0.0.1", 50000),
                        TcpState.ESTABLISHED)); // closed, fd reused
        listening.remove(10);
        ProcessSocket reopened = listen(12, 300, 9092);
        assertEquals(List.of(reopened), census.current(Set.of(9092), SECOND));
        assertEquals(2, census.censuses());
        assertTrue(census.foundAfterFirstCensus(reopened), "a new socket on the same port");

        listening.remove(12); // shut down, descriptor still open on the same socket
        assertEquals(List.of(), census.current(Set.of(), 2 * SECOND));
        assertEquals(3, census.censuses());
    }

    @Test
    void aPortNoCensusExplainsAsksAgainAtMostOnceAMinute() throws Exception {
        listen(10, 100, 9092);
        census.current(Set.of(), 0);
        // connections stay on a port whose listener closed before the agent looked
        census.current(Set.of(9092, 9094), SECOND);
        assertEquals(2, census.censuses());
        for (int second = 2; second < 60; second++) {
            census.current(Set.of(9092, 9094), second * SECOND);
        }
        assertEquals(2, census.censuses(), "not every round");
        census.current(Set.of(9092, 9094), SECOND + ListenerCensus.UNEXPLAINED_PORT_RETRY_NANOS);
        assertEquals(3, census.censuses(), "once the minute is up");
    }

    /**
     * The agent tells the ports of the connections a round read, and an idle connection is read every few rounds:
     * a port told in some rounds and not in others still asks at most once a minute.
     */
    @Test
    void aPortToldOnlyInSomeRoundsAsksAgainAtMostOnceAMinute() throws Exception {
        listen(10, 100, 9092);
        census.current(Set.of(), 0);
        // two ports no listener explains, their connections read in turn
        census.current(Set.of(9094), SECOND);
        census.current(Set.of(9096), 2 * SECOND);
        assertEquals(3, census.censuses(), "each port's first");
        for (int second = 3; second < 60; second++) {
            census.current(second % 2 == 0 ? Set.of(9096) : Set.of(9094), second * SECOND);
        }
        assertEquals(3, census.censuses(), "not each time a port is told again");
        census.current(Set.of(9094), SECOND + ListenerCensus.UNEXPLAINED_PORT_RETRY_NANOS);
        assertEquals(4, census.censuses(), "once the minute is up");
    }
}
