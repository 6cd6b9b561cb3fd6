package io.tcpsight.agent.hooks;

import java.nio.channels.SocketChannel;
import net.bytebuddy.asm.Advice;

/** Selector.doClose(KafkaChannel, boolean): release the connection while its socket is still open. */
public final class DoCloseAdvice {
    private DoCloseAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(0) Object argument) {
        org.apache.kafka.common.network.KafkaChannel channel = (org.apache.kafka.common.network.KafkaChannel) argument;
        if (channel != null && channel.selectionKey() != null) {
            Hooks.closing((SocketChannel) channel.selectionKey().channel());
        }
    }
}
