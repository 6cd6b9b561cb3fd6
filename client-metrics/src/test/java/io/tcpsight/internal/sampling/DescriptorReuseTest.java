package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tcp.TcpSockets;
import io.tcpsight.testing.NativeLibrary;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A tracked socket closes without its release (a close no hook saw) and a new socket takes its
 * descriptor before the next sample: churn on real loopback sockets, with the reuse forced each
 * time. The new socket must never be read as the old connection.
 */
class DescriptorReuseTest {
    private static final int CYCLES = 2000;

    @BeforeEach
    void nativeLibrary() {
        NativeLibrary.assumeLoaded();
    }

    @Test
    void aReusedDescriptorIsNeverReadAsTheOldConnection() throws IOException {
        ConnectionRegistry registry = new ConnectionRegistry(10_000);
        ConnectionSampler sampler = new ConnectionSampler(registry);
        int forcedReuses = 0;
        int misattributed = 0;
        int steadyBroken = 0;
        try (ServerSocketChannel listener = listener();
                SocketChannel steady = SocketChannel.open(listener.getLocalAddress());
                SocketChannel steadyPeer = listener.accept()) {
            TrackedConnection control = track(registry, steady);
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                SocketChannel old = SocketChannel.open(listener.getLocalAddress());
                SocketChannel oldPeer = listener.accept();
                TrackedConnection tracked = track(registry, old);
                old.write(ByteBuffer.wrap(new byte[] {1}));
                sampler.sample();
                old.close(); // no release: the close hook never ran
                oldPeer.close();
                SocketChannel newcomer = SocketChannel.open(listener.getLocalAddress());
                try (SocketChannel newcomerPeer = listener.accept()) {
                    if (TcpSockets.fileDescriptor(newcomer) == tracked.fd()) {
                        forcedReuses++;
                    }
                    steady.write(ByteBuffer.wrap(new byte[] {2}));
                    List<TrackedConnection> sampled = sampler.sample();
                    if (sampled.contains(tracked)) {
                        misattributed++;
                    }
                    if (control.latest().orElseThrow().interval().isEmpty() || !sampled.contains(control)) {
                        steadyBroken++; // the steady connection must go on being sampled, with deltas
                    }
                } finally {
                    newcomer.close();
                }
            }
            System.out.printf(
                    "descriptor reuse: %d cycles, %d with the descriptor reused, %d misattributed samples,"
                            + " %d broken samples of the steady connection, %d releases for reuse%n",
                    CYCLES, forcedReuses, misattributed, steadyBroken, sampler.reusedDescriptors());
            assertTrue(forcedReuses >= CYCLES * 9 / 10, "the churn reused descriptors: " + forcedReuses);
            assertEquals(0, misattributed, "samples of a closed connection read from another socket");
            assertEquals(0, steadyBroken);
            // At least every forced reuse; another socket of the churn may take the descriptor instead.
            assertTrue(
                    sampler.reusedDescriptors() >= forcedReuses, "releases for reuse: " + sampler.reusedDescriptors());
            assertEquals(List.of(control), registry.connections(), "only the open connection stays tracked");
        }
    }

    /** Without the inode the sampler cannot tell, which is why registration reads it. */
    @Test
    void withoutTheInodeTheNewSocketWouldBeReadAsTheOld() throws IOException {
        try (ServerSocketChannel listener = listener()) {
            // Linux hands out the lowest free descriptor, the one just closed, unless another thread of
            // this JVM takes it first (2 cycles in 2,000 above): a few tries, then it must have happened.
            for (int attempt = 0; attempt < 10; attempt++) {
                ConnectionRegistry registry = new ConnectionRegistry(100);
                ConnectionSampler sampler = new ConnectionSampler(registry);
                SocketChannel old = SocketChannel.open(listener.getLocalAddress());
                listener.accept().close();
                int fd = TcpSockets.fileDescriptor(old);
                TrackedConnection unknown = registry.track(fd, 0, identity(old)).orElseThrow();
                old.close();
                try (SocketChannel newcomer = SocketChannel.open(listener.getLocalAddress());
                        SocketChannel peer = listener.accept()) {
                    if (TcpSockets.fileDescriptor(newcomer) != fd) {
                        continue;
                    }
                    assertTrue(sampler.sample().contains(unknown), "read as the old connection");
                    assertEquals(0, sampler.reusedDescriptors());
                    assertFalse(TcpSockets.socketInode(fd).isEmpty());
                    return;
                }
            }
            fail("no descriptor was reused in 10 tries");
        }
    }

    private static TrackedConnection track(ConnectionRegistry registry, SocketChannel channel) throws IOException {
        int fd = TcpSockets.fileDescriptor(channel);
        return registry.track(fd, TcpSockets.socketInode(fd).orElse(0), identity(channel))
                .orElseThrow();
    }

    private static ConnectionIdentity identity(SocketChannel channel) throws IOException {
        return ConnectionIdentity.of(Role.CLIENT, (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress)
                channel.getRemoteAddress());
    }

    private static ServerSocketChannel listener() throws IOException {
        return ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    }
}
