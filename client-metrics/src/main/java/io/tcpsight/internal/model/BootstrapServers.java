package io.tcpsight.internal.model;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/** bootstrap.servers as Kafka writes it: host:port entries, comma-separated or as a list, IPv6 hosts in brackets. */
public final class BootstrapServers {
    private BootstrapServers() {}

    /** Unresolved addresses; malformed entries are skipped (Kafka rejects such a config itself). */
    public static List<InetSocketAddress> parse(Object servers) {
        List<InetSocketAddress> parsed = new ArrayList<>();
        if (servers == null) {
            return parsed;
        }
        String text = servers instanceof List
                ? String.join(
                        ",", ((List<?>) servers).stream().map(String::valueOf).toArray(String[]::new))
                : String.valueOf(servers);
        for (String server : text.split(",")) {
            String trimmed = server.trim();
            int colon = trimmed.lastIndexOf(':');
            if (colon <= 0) {
                continue;
            }
            String host = trimmed.substring(0, colon);
            int scheme = host.indexOf("://");
            if (scheme >= 0) {
                host = host.substring(scheme + 3);
            }
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            try {
                parsed.add(InetSocketAddress.createUnresolved(host, Integer.parseInt(trimmed.substring(colon + 1))));
            } catch (IllegalArgumentException notAPort) {
                // skipped, as documented
            }
        }
        return parsed;
    }
}
