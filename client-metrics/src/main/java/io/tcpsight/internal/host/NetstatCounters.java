package io.tcpsight.internal.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The extended TCP counters of {@code /proc/net/netstat} (TcpExt, IpExt, ...), such as
 * SyncookiesSent, ListenOverflows and TCPReqQFullDoCookies. They count per network namespace.
 */
public final class NetstatCounters {
    public static final String SYNCOOKIES_SENT = "SyncookiesSent";
    public static final String SYNCOOKIES_RECV = "SyncookiesRecv";
    public static final String SYNCOOKIES_FAILED = "SyncookiesFailed";
    public static final String LISTEN_OVERFLOWS = "ListenOverflows";
    public static final String LISTEN_DROPS = "ListenDrops";
    public static final String REQ_QUEUE_FULL_DO_COOKIES = "TCPReqQFullDoCookies";
    public static final String REQ_QUEUE_FULL_DROP = "TCPReqQFullDrop";
    public static final String SYN_RETRANS = "TCPSynRetrans";

    private final Map<String, Map<String, Long>> sections;

    private NetstatCounters(Map<String, Map<String, Long>> sections) {
        this.sections = sections;
    }

    /** Reads this process's network namespace. */
    public static NetstatCounters read() throws IOException {
        return read(Paths.get("/proc/self/net/netstat"));
    }

    public static NetstatCounters read(Path file) throws IOException {
        return parse(new String(Files.readAllBytes(file), StandardCharsets.US_ASCII), file.toString());
    }

    /**
     * Parses netstat text: pairs of lines, a header line "Section: Name Name ..." followed by a
     * value line "Section: 1 2 ...".
     *
     * @throws MalformedProcFileException naming the line and what is wrong with it
     */
    public static NetstatCounters parse(String text, String source) {
        String[] lines = text.split("\n");
        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        int lineNumber = 0;
        while (lineNumber < lines.length) {
            String header = lines[lineNumber];
            if (header.trim().isEmpty()) {
                lineNumber++;
                continue;
            }
            if (lineNumber + 1 >= lines.length) {
                throw new MalformedProcFileException(source, lineNumber + 1, "header line has no value line after it");
            }
            String values = lines[lineNumber + 1];
            String[] names = header.trim().split("\\s+");
            String[] numbers = values.trim().split("\\s+");
            if (!names[0].endsWith(":") || !names[0].equals(numbers[0])) {
                throw new MalformedProcFileException(
                        source,
                        lineNumber + 1,
                        "expected a header and a value line of the same section, got '" + names[0] + "' and '"
                                + numbers[0] + "'");
            }
            if (names.length != numbers.length) {
                throw new MalformedProcFileException(
                        source,
                        lineNumber + 2,
                        names[0] + " has " + (names.length - 1) + " names but " + (numbers.length - 1) + " values");
            }
            Map<String, Long> counters = new LinkedHashMap<>();
            for (int i = 1; i < names.length; i++) {
                try {
                    counters.put(names[i], Long.parseLong(numbers[i]));
                } catch (NumberFormatException notANumber) {
                    throw new MalformedProcFileException(
                            source,
                            lineNumber + 2,
                            names[0] + names[i] + " has the value '" + numbers[i] + "', which is not a whole number");
                }
            }
            sections.put(names[0].substring(0, names[0].length() - 1), Collections.unmodifiableMap(counters));
            lineNumber += 2;
        }
        return new NetstatCounters(Collections.unmodifiableMap(sections));
    }

    /** A TcpExt counter, e.g. {@link #SYNCOOKIES_SENT}; empty when this kernel lacks it. */
    public OptionalLong tcpExt(String name) {
        return counter("TcpExt", name);
    }

    public OptionalLong counter(String section, String name) {
        Map<String, Long> counters = sections.get(section);
        Long value = counters == null ? null : counters.get(name);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** Every counter of a section (TcpExt, IpExt, MPTcpExt, ...), in file order. */
    public Map<String, Long> section(String section) {
        return sections.getOrDefault(section, Collections.emptyMap());
    }
}
