package io.tcpsight.internal.tcp;

import java.net.InetSocketAddress;

/** One TCP socket held by this process: its descriptor, addresses and state. */
public final class ProcessSocket {
    private final int fd;
    private final long inode;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final TcpState state;

    public ProcessSocket(int fd, long inode, InetSocketAddress local, InetSocketAddress remote, TcpState state) {
        this.fd = fd;
        this.inode = inode;
        this.local = local;
        this.remote = remote;
        this.state = state;
    }

    public int fd() {
        return fd;
    }

    public long inode() {
        return inode;
    }

    public InetSocketAddress local() {
        return local;
    }

    /** The peer; the wildcard address with port 0 for a listening socket. */
    public InetSocketAddress remote() {
        return remote;
    }

    public TcpState state() {
        return state;
    }

    @Override
    public String toString() {
        return "fd " + fd + " " + state + " " + local.getAddress().getHostAddress() + ":" + local.getPort() + " -> "
                + remote.getAddress().getHostAddress() + ":" + remote.getPort();
    }
}
