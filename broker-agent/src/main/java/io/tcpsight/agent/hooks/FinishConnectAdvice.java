package io.tcpsight.agent.hooks;

import java.nio.channels.SocketChannel;
import net.bytebuddy.asm.Advice;

/**
 * KafkaChannel.finishConnect(): true when the client's handshake completed. Signatures name only
 * JDK types: resolving a Kafka type here while Kafka's class is being defined would define it
 * twice. The cast in the body resolves later, inside Kafka's own class.
 */
public final class FinishConnectAdvice {
    private FinishConnectAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object self, @Advice.Return boolean connected) {
        org.apache.kafka.common.network.KafkaChannel channel = (org.apache.kafka.common.network.KafkaChannel) self;
        if (connected && channel.selectionKey() != null) {
            Hooks.connected((SocketChannel) channel.selectionKey().channel());
        }
    }
}
