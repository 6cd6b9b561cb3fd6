package io.tcpsight.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ObservationRuntimeTest {
    @Test
    void anExporterThatCannotStartCostsOneLineAndTheRestRunsAndClosesInReverse() throws Exception {
        List<String> warnings = new CopyOnWriteArrayList<>();
        List<String> events = new CopyOnWriteArrayList<>();
        ObservationRuntime runtime = ObservationRuntime.builder("tcpsight test", TcpsightConfig.defaults())
                .log(message -> {}, warnings::add)
                .exporter("first", monitor -> () -> events.add("first closed"))
                .exporter("broken", monitor -> {
                    throw new IllegalStateException("port in use");
                })
                .exporter("last", monitor -> () -> events.add("last closed"))
                .build()
                .start();
        runtime.close();

        assertEquals(
                List.of(
                        "tcpsight test: broken not started, the rest runs: java.lang.IllegalStateException: port in use"),
                warnings);
        assertEquals(List.of("last closed", "first closed"), events);
    }

    @Test
    void aRoundRunsTheStepsInOrderThenTracksWhatTheCensusFound() throws Exception {
        List<String> steps = new CopyOnWriteArrayList<>();
        try (ServerSocketChannel server =
                        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                SocketChannel accepted = server.accept()) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            ObservationRuntime runtime = ObservationRuntime.builder("tcpsight test", TcpsightConfig.from(Map.of()))
                    .beforeRound(() -> steps.add("before census"))
                    .census(socket -> socket.remote() != null && socket.remote().getPort() == port, socket -> {
                        steps.add("census identified " + socket.remote().getPort());
                        return ConnectionIdentity.of(Role.CLIENT, socket.local(), socket.remote())
                                .withClientId("c-1");
                    })
                    .beforeRound(() -> steps.add("after census"))
                    .namer(sampled -> steps.add("named " + sampled.size()))
                    .build();
            runtime.round();

            assertEquals(List.of("before census", "census identified " + port, "after census", "named 1"), steps);
            assertEquals(1, runtime.registry().size());
            assertEquals(
                    "c-1",
                    runtime.registry()
                            .connections()
                            .get(0)
                            .identity()
                            .clientId()
                            .orElseThrow());
            runtime.close();
        }
    }

    @Test
    void aFailingCensusIsNamedInTheRoundsFailure() {
        ObservationRuntime runtime = ObservationRuntime.builder("tcpsight test", TcpsightConfig.defaults())
                .beforeRound(() -> {
                    throw new IOException("/proc/self/fd unreadable");
                })
                .build();
        IllegalStateException failure = assertThrows(IllegalStateException.class, runtime::round);
        assertTrue(failure.getMessage().contains("/proc/self/fd unreadable"), failure.getMessage());
    }
}
