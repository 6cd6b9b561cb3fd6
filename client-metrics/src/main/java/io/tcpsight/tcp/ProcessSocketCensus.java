package io.tcpsight.tcp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every TCP socket this process holds, found from {@code /proc/self/fd} and the namespace's
 * TCP tables. This is how a JVM without the agent still sees its Kafka connections.
 */
public final class ProcessSocketCensus {
    private static final String SOCKET_LINK_PREFIX = "socket:[";

    private ProcessSocketCensus() {
    }

    public static List<ProcessSocket> take() throws IOException {
        return take(Paths.get("/proc/self"));
    }

    /** Takes the census of the process whose /proc folder is procPid (e.g. /proc/self). */
    public static List<ProcessSocket> take(Path procPid) throws IOException {
        Map<Long, ProcNetTcp.Entry> tcp = new HashMap<>();
        for (String table : new String[] {"net/tcp", "net/tcp6"}) {
            Path file = procPid.resolve(table);
            if (Files.exists(file)) {
                tcp.putAll(ProcNetTcp.parse(new String(Files.readAllBytes(file), StandardCharsets.US_ASCII), file.toString()));
            }
        }
        List<ProcessSocket> sockets = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(procPid.resolve("fd"))) {
            for (Path fdLink : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fdLink).toString();
                } catch (NoSuchFileException closedMeanwhile) {
                    continue;
                }
                if (!target.startsWith(SOCKET_LINK_PREFIX) || !target.endsWith("]")) {
                    continue;
                }
                long inode = Long.parseLong(target.substring(SOCKET_LINK_PREFIX.length(), target.length() - 1));
                ProcNetTcp.Entry entry = tcp.get(inode);
                if (entry != null) {
                    sockets.add(new ProcessSocket(Integer.parseInt(fdLink.getFileName().toString()), inode, entry.local, entry.remote,
                            entry.state));
                }
            }
        }
        sockets.sort(Comparator.comparingInt(ProcessSocket::fd));
        return sockets;
    }
}
