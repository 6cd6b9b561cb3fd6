package io.tcpsight.agent.hooks;

import net.bytebuddy.asm.Advice;

/** NetworkClient's constructors: the only place a client's Selector meets its client.id. */
public final class NetworkClientAdvice {
    private NetworkClientAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.AllArguments Object[] arguments) {
        Object selector = null;
        String clientId = null;
        for (Object argument : arguments) {
            if (selector == null && argument instanceof org.apache.kafka.common.network.Selectable) {
                selector = argument;
            } else if (clientId == null && argument instanceof String) {
                clientId = (String) argument;
            }
        }
        Hooks.networkClient(selector, clientId);
    }
}
