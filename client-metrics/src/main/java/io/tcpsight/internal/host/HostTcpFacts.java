package io.tcpsight.internal.host;

import io.tcpsight.internal.model.BufferLimits;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import io.tcpsight.internal.model.OptionalValues;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The kernel release and the TCP sysctls that decide windows, backlogs and congestion control,
 * as seen from this process's network namespace. A value that is missing or unreadable is
 * absent, and {@link #problems()} says why; reading never throws.
 */
public final class HostTcpFacts {
    private final Optional<KernelVersion> kernel;
    private final OptionalLong rmemMax;
    private final OptionalLong wmemMax;
    private final OptionalLong somaxconn;
    private final Optional<BufferLimits> tcpRmem;
    private final Optional<BufferLimits> tcpWmem;
    private final OptionalLong windowScaling;
    private final OptionalLong timestamps;
    private final OptionalLong syncookies;
    private final Optional<String> congestionControl;
    private final List<String> allowedCongestionControl;
    private final List<String> availableCongestionControl;
    private final List<String> problems;

    private HostTcpFacts(Reader reader) {
        kernel = reader.text("kernel.osrelease", "sys/kernel/osrelease").flatMap(KernelVersion::parse);
        rmemMax = reader.number("net.core.rmem_max", "sys/net/core/rmem_max");
        wmemMax = reader.number("net.core.wmem_max", "sys/net/core/wmem_max");
        somaxconn = reader.number("net.core.somaxconn", "sys/net/core/somaxconn");
        tcpRmem = reader.limits("net.ipv4.tcp_rmem", "sys/net/ipv4/tcp_rmem");
        tcpWmem = reader.limits("net.ipv4.tcp_wmem", "sys/net/ipv4/tcp_wmem");
        windowScaling = reader.number("net.ipv4.tcp_window_scaling", "sys/net/ipv4/tcp_window_scaling");
        timestamps = reader.number("net.ipv4.tcp_timestamps", "sys/net/ipv4/tcp_timestamps");
        syncookies = reader.number("net.ipv4.tcp_syncookies", "sys/net/ipv4/tcp_syncookies");
        congestionControl = reader.text("net.ipv4.tcp_congestion_control", "sys/net/ipv4/tcp_congestion_control");
        allowedCongestionControl =
                reader.words("net.ipv4.tcp_allowed_congestion_control", "sys/net/ipv4/tcp_allowed_congestion_control");
        availableCongestionControl = reader.words(
                "net.ipv4.tcp_available_congestion_control", "sys/net/ipv4/tcp_available_congestion_control");
        problems = Collections.unmodifiableList(reader.problems);
    }

    /** This process's view, from /proc. */
    public static HostTcpFacts current() {
        return read(Paths.get("/proc"));
    }

    /** Reads from a proc tree rooted at procRoot (a real /proc, or a copy of one). */
    public static HostTcpFacts read(Path procRoot) {
        return new HostTcpFacts(new Reader(procRoot));
    }

    public Optional<KernelVersion> kernel() {
        return kernel;
    }

    public OptionalLong rmemMax() {
        return rmemMax;
    }

    public OptionalLong wmemMax() {
        return wmemMax;
    }

    public OptionalLong somaxconn() {
        return somaxconn;
    }

    public Optional<BufferLimits> tcpRmem() {
        return tcpRmem;
    }

    public Optional<BufferLimits> tcpWmem() {
        return tcpWmem;
    }

    public OptionalLong windowScaling() {
        return windowScaling;
    }

    public OptionalLong timestamps() {
        return timestamps;
    }

    /** 0 off, 1 when the SYN queue overflows, 2 always. */
    public OptionalLong syncookies() {
        return syncookies;
    }

    public Optional<String> congestionControl() {
        return congestionControl;
    }

    public List<String> allowedCongestionControl() {
        return allowedCongestionControl;
    }

    public List<String> availableCongestionControl() {
        return availableCongestionControl;
    }

    /** One line per value that could not be read, naming the sysctl and the reason. */
    public List<String> problems() {
        return problems;
    }

    private static final class Reader {
        private static final int SYSCTL_READ_BYTES = 64 * 1024;
        private final Path procRoot;
        private final List<String> problems = new ArrayList<>();

        Reader(Path procRoot) {
            this.procRoot = procRoot;
        }

        Optional<String> text(String sysctl, String relativePath) {
            Path file = procRoot.resolve(relativePath);
            try {
                String value = readSysctl(file);
                if (value.isEmpty()) {
                    problems.add(sysctl + ": " + file + " is empty");
                    return Optional.empty();
                }
                return Optional.of(value);
            } catch (NoSuchFileException missing) {
                problems.add(sysctl + ": " + file + " does not exist on this kernel or in this namespace");
            } catch (IOException | SecurityException unreadable) {
                problems.add(sysctl + ": " + file + " cannot be read: " + unreadable);
            }
            return Optional.empty();
        }

        /**
         * Reads in one call with a large buffer: integer sysctls answer EOF to any read at a
         * non-zero offset, so a reader that probes the first byte alone sees only one digit.
         */
        private static String readSysctl(Path file) throws IOException {
            try (InputStream in = Files.newInputStream(file)) {
                byte[] buffer = new byte[SYSCTL_READ_BYTES];
                int total = 0;
                int n;
                while (total < buffer.length && (n = in.read(buffer, total, buffer.length - total)) > 0) {
                    total += n;
                }
                return new String(buffer, 0, total, StandardCharsets.US_ASCII).trim();
            }
        }

        OptionalLong number(String sysctl, String relativePath) {
            Optional<String> text = text(sysctl, relativePath);
            if (!text.isPresent()) {
                return OptionalLong.empty();
            }
            try {
                return OptionalLong.of(Long.parseLong(text.get()));
            } catch (NumberFormatException notANumber) {
                problems.add(sysctl + ": '" + text.get() + "' is not a whole number");
                return OptionalLong.empty();
            }
        }

        Optional<BufferLimits> limits(String sysctl, String relativePath) {
            Optional<String> text = text(sysctl, relativePath);
            if (!text.isPresent()) {
                return Optional.empty();
            }
            String[] parts = text.get().split("\\s+");
            try {
                if (parts.length == 3) {
                    return Optional.of(new BufferLimits(
                            Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])));
                }
            } catch (NumberFormatException notANumber) {
                // reported below
            }
            problems.add(sysctl + ": '" + text.get() + "' is not three whole numbers (min default max)");
            return Optional.empty();
        }

        List<String> words(String sysctl, String relativePath) {
            return text(sysctl, relativePath)
                    .map(value -> Collections.unmodifiableList(Arrays.asList(value.split("\\s+"))))
                    .orElse(Collections.emptyList());
        }
    }

    /** The facts the rules use, from these. */
    public KernelFacts kernelFacts() {
        return new KernelFacts(
                kernel().orElse(null),
                tcpRmem().map(BufferLimits::maxBytes).orElse(null),
                tcpWmem().map(BufferLimits::maxBytes).orElse(null),
                OptionalValues.orNull(timestamps()),
                OptionalValues.orNull(windowScaling()));
    }
}
