package io.tcpsight.agent.hooks;

import java.nio.channels.SocketChannel;
import net.bytebuddy.asm.Advice;

/** Selector.registerChannel(String id, SocketChannel channel, int ops): every connection, both sides. */
public final class RegisterChannelAdvice {
    private RegisterChannelAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object selector, @Advice.Argument(0) String id, @Advice.Argument(1) SocketChannel channel) {
        Hooks.registered(selector, id, channel);
    }
}
