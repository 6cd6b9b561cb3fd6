package io.tcpsight.internal.model;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Linux kernel release such as {@code 6.6.32-amd64}, compared by major.minor.patch. */
public final class KernelVersion implements Comparable<KernelVersion> {
    private static final Pattern RELEASE = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*");

    private final int major;
    private final int minor;
    private final int patch;
    private final String release;

    public KernelVersion(int major, int minor, int patch, String release) {
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.release = release;
    }

    public static KernelVersion of(int major, int minor, int patch) {
        return new KernelVersion(major, minor, patch, major + "." + minor + "." + patch);
    }

    /** Parses a release string; empty when it does not start with major.minor. */
    public static Optional<KernelVersion> parse(String release) {
        if (release == null) {
            return Optional.empty();
        }
        String trimmed = release.trim();
        Matcher matcher = RELEASE.matcher(trimmed);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            int patch = matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3));
            return Optional.of(new KernelVersion(
                    Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)), patch, trimmed));
        } catch (NumberFormatException tooLarge) {
            return Optional.empty();
        }
    }

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    public int patch() {
        return patch;
    }

    /** The full release as the kernel reports it. */
    public String release() {
        return release;
    }

    public boolean isAtLeast(int otherMajor, int otherMinor, int otherPatch) {
        return compareTo(of(otherMajor, otherMinor, otherPatch)) >= 0;
    }

    @Override
    public int compareTo(KernelVersion other) {
        if (major != other.major) {
            return Integer.compare(major, other.major);
        }
        if (minor != other.minor) {
            return Integer.compare(minor, other.minor);
        }
        return Integer.compare(patch, other.patch);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KernelVersion && compareTo((KernelVersion) other) == 0;
    }

    @Override
    public int hashCode() {
        return (major * 1000 + minor) * 1000 + patch;
    }

    @Override
    public String toString() {
        return release;
    }
}
