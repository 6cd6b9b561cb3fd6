package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The listening sockets are found by a census now and then, and read alone in between (real sockets). */
class ListenerWatchTest {
    private static Set<Integer> ports(List<ListenerWatch.Listener> listeners) {
        return listeners.stream().map(l -> l.identity.local().getPort()).collect(Collectors.toSet());
    }

    @Test
    void aCensusFindsTheListenersAndRoundsBetweenReadOnlyThem() throws Exception {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (ServerSocketChannel plaintext = ServerSocketChannel.open().bind(loopback, 50);
                ServerSocketChannel controller = ServerSocketChannel.open().bind(loopback, 50)) {
            int plaintextPort = ((InetSocketAddress) plaintext.getLocalAddress()).getPort();
            int controllerPort = ((InetSocketAddress) controller.getLocalAddress()).getPort();
            Map<Integer, String> names = new HashMap<>(Map.of(plaintextPort, "PLAINTEXT"));
            ListenerWatch watch = new ListenerWatch(names, -1);
            List<ListenerWatch.Listener> first = watch.listeners();
            assertTrue(
                    ports(first).containsAll(Set.of(plaintextPort, controllerPort)),
                    ports(first).toString());
            names.put(controllerPort, "CONTROLLER"); // learned from a request meanwhile
            List<ListenerWatch.Listener> second = watch.listeners();
            assertEquals(1, watch.censuses(), "the second round read the listeners only");
            assertTrue(
                    second.stream()
                            .anyMatch(l -> l.identity.listener().orElse("").equals("CONTROLLER")),
                    "a name learned since the census is used");
            try (ServerSocketChannel opened = ServerSocketChannel.open().bind(loopback, 50)) {
                int openedPort = ((InetSocketAddress) opened.getLocalAddress()).getPort();
                assertFalse(ports(watch.listeners()).contains(openedPort), "seen at the next census, not before");
                controller.close();
                List<ListenerWatch.Listener> afterClose = watch.listeners();
                assertEquals(2, watch.censuses(), "a listener gone takes the census again at once");
                assertFalse(ports(afterClose).contains(controllerPort));
                assertTrue(ports(afterClose).contains(openedPort), "and that census finds the new one");
            }
        }
    }

    @Test
    void theCensusIsTakenAgainEveryFewRounds() throws Exception {
        try (ServerSocketChannel listener =
                ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50)) {
            ListenerWatch watch = new ListenerWatch(Map.of(), -1);
            for (int round = 0; round < ListenerWatch.CENSUS_EVERY_ROUNDS; round++) {
                watch.listeners();
            }
            assertEquals(1, watch.censuses());
            watch.listeners();
            assertEquals(2, watch.censuses());
        }
    }
}
