package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;

/** The spellings several libraries' keys share: a default noted, a Go dialer, no buffer setting at all. */
final class LibrarySettings {
    private LibrarySettings() {}

    static Setting defaulted(String library, String key, String value, String libraryDefault, String whose) {
        return Setting.client(library, key, value).notedWhenDefault(libraryDefault, whose);
    }

    /** A Go library whose sockets come from a dialer: autotuned unless the dialer's Control sets a size. */
    static Setting dialer(String library, String key, String javaKey, String value) {
        String option = javaKey.startsWith("receive") ? "SO_RCVBUF" : "SO_SNDBUF";
        return Setting.AUTOTUNE.equals(value)
                ? Setting.client(library, key, "the default dialer")
                        .withNote("no Control that sets " + option + ": the kernel then autotunes up to this host's "
                                + (option.equals("SO_RCVBUF") ? "net.ipv4.tcp_rmem" : "net.ipv4.tcp_wmem") + " max")
                : Setting.client(library, key, "a net.Dialer whose Control sets " + option + " to " + value);
    }

    /** A library that never sets a socket buffer: the kernel autotunes, up to the host's sysctl. */
    static Setting noBuffer(String library, String where, String javaKey) {
        boolean receive = javaKey.startsWith("receive");
        return Setting.client(library, where, "no socket buffer setting")
                .withNote(library + " leaves " + (receive ? "SO_RCVBUF" : "SO_SNDBUF")
                        + " to the kernel, which autotunes up to the max of "
                        + (receive ? "net.ipv4.tcp_rmem" : "net.ipv4.tcp_wmem") + " on the client's host: raise that");
    }
}
