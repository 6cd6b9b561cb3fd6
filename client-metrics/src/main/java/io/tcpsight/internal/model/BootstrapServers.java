package io.tcpsight.internal.model;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

    /**
     * The servers resolved, every address of each host with its port: the brokers a path certainly
     * leads to. A port alone does not say it (in one JVM, clients of two clusters both reach 9092). A
     * lookup may wait on DNS, so it belongs on a thread of tcpsight's own ({@link ResolvedServers}); a
     * host that does not resolve gives none.
     */
    public static Set<InetSocketAddress> resolve(Object servers) {
        Set<InetSocketAddress> addresses = new HashSet<>();
        for (InetSocketAddress server : parse(servers)) {
            try {
                for (InetAddress address : InetAddress.getAllByName(server.getHostString())) {
                    addresses.add(new InetSocketAddress(address, server.getPort()));
                }
            } catch (UnknownHostException unresolved) {
                // no path to it is certainly this cluster's
            }
        }
        return addresses;
    }
}
