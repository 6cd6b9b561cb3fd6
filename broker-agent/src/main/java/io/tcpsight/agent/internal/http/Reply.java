package io.tcpsight.agent.internal.http;

/** Where one request's answer goes. Called on the selector thread only, once. */
interface Reply {
    void send(Response response);
}
