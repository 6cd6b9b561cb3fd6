package io.tcpsight.internal.sampling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The connections a full registry refused and that are still open, by group (a broker's
 * listener, or "" for a component's own client connections), so that what goes unwatched is
 * said, not silent. Indexed by file descriptor: the kernel hands out the lowest free one, so the
 * arrays grow only with the descriptors the process holds (a byte and a bit each). At most
 * {@link #MAX_GROUPS} groups, {@link #OTHER} among them, which counts the rest.
 */
final class UntrackedConnections {
    static final int MAX_GROUPS = 64;
    static final String OTHER = "other";

    // Guarded by this:
    private final BitSet open = new BitSet();
    private byte[] groupOfFd = new byte[0];
    private final List<String> groups = new ArrayList<>();
    private long[] counts = new long[0];

    synchronized void refused(int fd, String group) {
        if (fd < 0) {
            return;
        }
        closed(fd); // a descriptor reused without a close we heard of
        int index = indexOf(group);
        if (fd >= groupOfFd.length) {
            groupOfFd = Arrays.copyOf(groupOfFd, Math.max(fd + 1, 2 * groupOfFd.length));
        }
        groupOfFd[fd] = (byte) index;
        open.set(fd);
        counts[index]++;
    }

    /** The descriptor closed, or is tracked now. */
    synchronized void closed(int fd) {
        if (fd >= 0 && open.get(fd)) {
            open.clear(fd);
            counts[groupOfFd[fd]]--;
        }
    }

    /** Forgets every untracked descriptor not among these (a census saw the others close). */
    synchronized void retainOnly(Set<Integer> present) {
        for (int fd = open.nextSetBit(0); fd >= 0; fd = open.nextSetBit(fd + 1)) {
            if (!present.contains(fd)) {
                closed(fd);
            }
        }
    }

    /** Open untracked connections by group, groups with none left out. */
    synchronized Map<String, Long> byGroup() {
        Map<String, Long> byGroup = new LinkedHashMap<>();
        for (int i = 0; i < groups.size(); i++) {
            if (counts[i] > 0) {
                byGroup.put(groups.get(i), counts[i]);
            }
        }
        return byGroup;
    }

    private int indexOf(String group) {
        String name = group == null ? "" : group;
        int index = groups.indexOf(name);
        if (index >= 0) {
            return index;
        }
        if (groups.size() >= MAX_GROUPS - 1) {
            index = groups.indexOf(OTHER);
            if (index >= 0) {
                return index;
            }
            name = OTHER;
        }
        groups.add(name);
        counts = Arrays.copyOf(counts, groups.size());
        return groups.size() - 1;
    }
}
