package io.tcpsight.internal.tcp;

import io.tcpsight.internal.tcp.PrivateExtraction.ExtractionFailedException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The JNI entry points and the loader for libtcpsight.so. Loading never throws: a failure is
 * kept as the reason in {@link #availability()}, and callers check it first.
 */
final class NativeTcp {
    /** Record layout shared with tcpsight_socket.h. */
    static final int RECORD_HEADER = 16;

    static final int INFO_CAPACITY = 280;
    static final int RECORD_STRIDE = RECORD_HEADER + INFO_CAPACITY;
    static final int STATE_COUNT = 5;
    static final int CONGESTION_NAME_CAPACITY = 16;
    static final int ADDRESSES_BYTES = 48;

    private static final NativeAvailability AVAILABILITY = load();

    private NativeTcp() {}

    static NativeAvailability availability() {
        return AVAILABILITY;
    }

    static void requireAvailable() {
        if (!AVAILABILITY.isAvailable()) {
            throw new NativeUnavailableException(AVAILABILITY.reason());
        }
    }

    static String platform() {
        return RuntimePlatform.key();
    }

    private static NativeAvailability load() {
        String platform = platform();
        if (!platform.startsWith("linux-")) {
            return NativeAvailability.unavailable(
                    platform,
                    "TCP_INFO is read through a Linux-only JNI library; this JVM runs on "
                            + System.getProperty("os.name") + ": run tcpsight on Linux (x86_64 or aarch64) to read it");
        }
        String resource = "/META-INF/native/" + platform + "/libtcpsight.so";
        return loadFrom(
                platform, resource, NativeTcp.class.getResourceAsStream(resource), PrivateExtraction.directory());
    }

    /** The platforms this jar carries a library for, in {@link RuntimePlatform#SHIPPED}'s order. */
    static List<String> carried() {
        List<String> carried = new ArrayList<>();
        for (String platform : RuntimePlatform.SHIPPED) {
            if (NativeTcp.class.getResource("/META-INF/native/" + platform + "/libtcpsight.so") != null) {
                carried.add(platform);
            }
        }
        return carried;
    }

    /**
     * Why there is no library for {@code platform} and what to do: a jar built for its build
     * machine's platform only (-Dtcpsight.native.platforms=host) wants replacing; a platform
     * tcpsight is not built for wants another host.
     */
    static String missingLibrary(String platform, String resource, List<String> carried) {
        String looked = "this jar has no native library for " + platform + " (looked for " + resource + ")";
        if (RuntimePlatform.SHIPPED.contains(platform)) {
            return looked + ": it was built for " + (carried.isEmpty() ? "no platform" : String.join(" and ", carried))
                    + " only (-Dtcpsight.native.platforms=host); install one built for every platform, which carries "
                    + String.join(" and ", RuntimePlatform.SHIPPED);
        }
        return looked + ": tcpsight's library is built for " + String.join(" and ", RuntimePlatform.SHIPPED)
                + " (glibc or musl) only; TCP_INFO is read on those";
    }

    /**
     * Extracts {@code library} into a private file in {@code directory} and loads it. Never throws:
     * a read-only, full or noexec directory, a truncated or foreign library each become one reason.
     * A private copy per class loader: a JVM may load tcpsight twice (agent and Connect plugin),
     * and one .so path can be bound to only one class loader.
     */
    static NativeAvailability loadFrom(String platform, String resource, InputStream library, Path directory) {
        try (InputStream content = library) {
            if (content == null) {
                return NativeAvailability.unavailable(platform, missingLibrary(platform, resource, carried()));
            }
            byte[] image = content.readAllBytes();
            Optional<String> unloadable = ElfImage.problem(image, platform);
            if (unloadable.isPresent()) {
                return NativeAvailability.unavailable(
                        platform, "the native library " + resource + " does not load: it " + unloadable.get());
            }
            Path extracted = PrivateExtraction.write(directory, "libtcpsight-", ".so", image);
            // asked before the load: in JEP 472's warn mode the JVM enables access once it has warned
            Optional<String> advice = nativeAccessAdvice(Runtime.version().feature(), NativeTcp.class.getModule());
            try {
                System.load(extracted.toAbsolutePath().toString());
            } catch (UnsatisfiedLinkError refused) {
                return NativeAvailability.unavailable(
                        platform,
                        PrivateExtraction.noexecReason(directory)
                                .orElse("the native library " + resource + " does not load: " + refused.getMessage()
                                        + " (it needs glibc 2.17 or later, or musl)"));
            } finally {
                // Once mapped, the file is no longer needed; nothing is left in the directory.
                PrivateExtraction.deleteQuietly(extracted);
            }
            if (recordStride() != RECORD_STRIDE || infoCapacity() != INFO_CAPACITY) {
                return NativeAvailability.unavailable(
                        platform,
                        "native library layout " + recordStride() + "/" + infoCapacity()
                                + " does not match the Java layout " + RECORD_STRIDE + "/" + INFO_CAPACITY);
            }
            NativeAvailability loaded = NativeAvailability.available(platform);
            return advice.map(loaded::withAdvice).orElse(loaded);
        } catch (ExtractionFailedException failed) {
            return NativeAvailability.unavailable(
                    platform, "the native library could not be extracted: " + failed.getMessage());
        } catch (IllegalCallerException refused) {
            return NativeAvailability.unavailable(platform, refusedAccess(refused));
        } catch (Throwable failure) {
            return NativeAvailability.unavailable(platform, "loading the native library failed: " + failure);
        }
    }

    /** The option that lets tcpsight's native library load on Java 24 and later (JEP 472). */
    static final String NATIVE_ACCESS_OPTION = "--enable-native-access=ALL-UNNAMED";

    static String refusedAccess(IllegalCallerException refused) {
        return "this JVM refuses native access to tcpsight's library (" + refused.getMessage() + "): start it with "
                + NATIVE_ACCESS_OPTION;
    }

    /**
     * On Java 24 and later, a library loaded from a module without native access enabled made the
     * JVM print JEP 472's warning (and a later Java will refuse it): the line that names the option.
     * Empty on earlier Javas, and where access is enabled. Module.isNativeAccessEnabled is Java 22's,
     * looked up by reflection: this jar runs on Java 11.
     */
    static Optional<String> nativeAccessAdvice(int javaFeature, Module module) {
        if (javaFeature < 24) {
            return Optional.empty();
        }
        try {
            boolean enabled =
                    (Boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(module);
            return enabled
                    ? Optional.empty()
                    : Optional.of("tcpsight: Java " + javaFeature + " warned when tcpsight loaded its native library"
                            + " (JEP 472) and a later Java will refuse it: start this JVM with "
                            + NATIVE_ACCESS_OPTION);
        } catch (ReflectiveOperationException | RuntimeException unknown) {
            return Optional.empty();
        }
    }

    static native int recordStride();

    static native int infoCapacity();

    /** The fdVal of a NIO channel, or -1 when the object has no such field. */
    static native int fileDescriptor(Object channel);

    /** Fills out (at least INFO_CAPACITY bytes); returns the bytes filled or -errno. */
    static native int tcpInfo(int fd, byte[] out);

    /** Samples count fds (native-order int32 in a direct buffer) into RECORD_STRIDE records. */
    static native void sampleBatch(ByteBuffer fds, int count, ByteBuffer records);

    /** SIOCINQ and SIOCOUTQ of count fds (native-order int32 in a direct buffer): two int32 each, value or -errno. */
    static native void queueBatch(ByteBuffer fds, int count, ByteBuffer queues);

    /** Fills out with SO_RCVBUF, SO_SNDBUF, TCP_WINDOW_CLAMP, TCP_MAXSEG, TCP_NODELAY; returns 0 or -errno. */
    static native int socketState(int fd, int[] out);

    /** The socket's own drop count (SO_MEMINFO's SK_MEMINFO_DROPS), or -errno. */
    static native long socketDrops(int fd);

    /** Writes the TCP_CONGESTION name into out; returns its length or -errno. */
    static native int congestion(int fd, byte[] out);

    /** Sets TCP_CONGESTION; returns 0 or -errno. */
    static native int setCongestion(int fd, byte[] name);

    /** Fills out (ADDRESSES_BYTES) with family, ports and addresses; returns 0 or -errno. */
    static native int socketAddresses(int fd, byte[] out);

    static native String errnoMessage(int errno);

    /** The netlink messages of a qdisc dump into out; returns the bytes filled or -errno. */
    static native int qdiscDump(byte[] out);

    /** A device's driver statistics (count, 32-byte names, uint64 values) into out; returns the bytes filled or -errno. */
    static native int ethtoolStats(byte[] device, byte[] out);

    /** listen(2) on a listening socket with a new backlog; returns 0 or -errno. */
    static native int listen(int fd, int backlog);

    /** Defines a class (internal name, a/b/C) in the bootstrap class loader; throws what the JVM throws. */
    static native Class<?> defineBootClass(String internalName, byte[] classFile);
}
