package io.tcpsight.internal.diagnose;

import io.tcpsight.internal.model.ConnectionFacts;

/** Lets tests in other packages use the rule tests' facts. */
public final class ConnectionRulesTestAccess {
    private ConnectionRulesTestAccess() {}

    public static ConnectionFacts smallBufferConsumer() {
        return ConnectionRulesTest.smallBufferConsumer(100).build();
    }
}
