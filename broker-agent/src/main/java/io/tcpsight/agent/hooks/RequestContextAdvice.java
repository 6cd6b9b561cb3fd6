package io.tcpsight.agent.hooks;

import net.bytebuddy.asm.Advice;

/** RequestContext's constructors: client.id, principal, listener and client software of a broker-side connection. */
public final class RequestContextAdvice {
    private RequestContextAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object self) {
        Hooks.request(((org.apache.kafka.common.requests.RequestContext) self).connectionId, self);
    }
}
