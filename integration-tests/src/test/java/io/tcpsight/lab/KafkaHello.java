package io.tcpsight.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The smallest real Kafka client: one connection that sends an ApiVersions request (v0) under a
 * client.id of its choice and reads the broker's answer. Hundreds of distinct client.ids cost a
 * few milliseconds each this way, where a Java client costs a thread pool and a second.
 */
public final class KafkaHello implements AutoCloseable {
    private static final short API_VERSIONS = 18;

    private final SocketChannel channel;

    private KafkaHello(SocketChannel channel) {
        this.channel = channel;
    }

    /** Connects, says hello as {@code clientId}, and waits for the broker's ApiVersions response. */
    public static KafkaHello connect(String bootstrapServer, String clientId) throws IOException {
        int colon = bootstrapServer.lastIndexOf(':');
        SocketChannel channel = SocketChannel.open(new InetSocketAddress(
                bootstrapServer.substring(0, colon), Integer.parseInt(bootstrapServer.substring(colon + 1))));
        try {
            ByteBuffer request = apiVersionsRequest(clientId);
            while (request.hasRemaining()) {
                channel.write(request);
            }
            ByteBuffer size = read(channel, 4);
            read(channel, size.getInt());
            return new KafkaHello(channel);
        } catch (IOException | RuntimeException failure) {
            channel.close();
            throw failure;
        }
    }

    /** An ApiVersions v0 request under this client.id, size-prefixed, ready to write. */
    static ByteBuffer apiVersionsRequest(String clientId) {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer request = ByteBuffer.allocate(4 + 2 + 2 + 4 + 2 + id.length);
        request.putInt(request.capacity() - 4)
                .putShort(API_VERSIONS)
                .putShort((short) 0)
                .putInt(1)
                .putShort((short) id.length)
                .put(id)
                .flip();
        return request;
    }

    private static ByteBuffer read(SocketChannel channel, int bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("the broker closed the connection before its ApiVersions response");
            }
        }
        return buffer.flip();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
