package io.tcpsight.agent.hooks;

import net.bytebuddy.asm.Advice;

/** Selector.connect: marks registerChannel calls on this thread as the client side, and times the handshake. */
public final class SelectorConnectAdvice {
    private SelectorConnectAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
        Hooks.connectStarting();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit() {
        Hooks.connectFinished();
    }
}
