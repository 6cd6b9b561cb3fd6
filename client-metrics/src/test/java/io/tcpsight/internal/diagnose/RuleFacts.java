package io.tcpsight.internal.diagnose;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.stream.Collectors;

/** The facts the rule tests judge, shared by every room's tests: a config, a kernel, identities, consumers and intervals. */
public final class RuleFacts {
    private RuleFacts() {}

    /** The path to a cluster as the doctor names it: its slowest broker. */
    public static final ConnectionIdentity PATH = ConnectionIdentity.of(
                    Role.CLIENT, null, new InetSocketAddress("10.0.0.2", 9092))
            .withClientId("tcpsight-doctor")
            .withNodeId("3");

    public static final TcpsightConfig DEFAULTS = TcpsightConfig.defaults();
    public static final KernelFacts KERNEL_618 =
            new KernelFacts(KernelVersion.of(6, 18, 44), 33_554_432L, 4_194_304L, 1L);

    public static ConnectionIdentity client(String clientId) {
        return ConnectionIdentity.of(
                        Role.CLIENT, new InetSocketAddress("10.0.0.1", 50000), new InetSocketAddress("10.0.0.2", 9092))
                .withClientId(clientId)
                .withNodeId("1");
    }

    public static ConnectionIdentity broker(String clientId) {
        return ConnectionIdentity.of(
                        Role.BROKER, new InetSocketAddress("10.0.0.2", 9092), new InetSocketAddress("10.0.0.1", 50000))
                .withClientId(clientId)
                .withListener("PLAINTEXT");
    }

    /** A consumer whose receive.buffer.bytes=65536 fixed a window of 64 KiB (wscale 2 on 6.18). */
    public static ConnectionFacts.Builder smallBufferConsumer(double rttMillis) {
        return ConnectionFacts.builder(client("consumer-g-1"))
                .rttMicros((long) (rttMillis * 1000))
                .windowScaling(true)
                .rcvWindowScale(2)
                .receiveBufferBytes(131_072)
                .windowClampBytes(65_536)
                .kafka(KafkaSettings.unknown()
                        .withReceiveBufferBytes(65_536)
                        .withSendBufferBytes(131_072)
                        .withFetchMaxBytes(52_428_800L)
                        .withMaxPartitionFetchBytes(1_048_576L))
                .kernel(KERNEL_618);
    }

    public static ConnectionFacts.Builder autotunedConsumer(double rttMillis) {
        return ConnectionFacts.builder(client("consumer-g-1"))
                .rttMicros((long) (rttMillis * 1000))
                .windowScaling(true)
                .rcvWindowScale(10)
                .receiveBufferBytes(6_000_000)
                .windowClampBytes(3_000_000)
                .kafka(KafkaSettings.unknown()
                        .withReceiveBufferBytes(-1)
                        .withSendBufferBytes(-1)
                        .withFetchMaxBytes(52_428_800L)
                        .withMaxPartitionFetchBytes(1_048_576L)
                        .withPartitionsPerBroker(4))
                .kernel(KERNEL_618);
    }

    public static Map<String, String> settings(Finding finding) {
        return finding.remedy().settings().stream()
                .collect(Collectors.toMap(s -> s.scope() + ":" + s.key().orElse(null), Setting::value));
    }

    /** A client's 10 s interval: busy this share of it, receiving this many bytes a second. */
    public static IntervalStats received(double busy, double bytesPerSecond) {
        return IntervalStats.over(10)
                .busyMicros((long) (busy * 10_000_000))
                .segmentsOut(1_000)
                .bytesReceived((long) (bytesPerSecond * 10))
                .build();
    }

    public static IntervalStats interval(double busy, double rwnd, double sndbuf, long retrans, long segments) {
        return interval(busy, rwnd, sndbuf, 10_000_000, retrans, segments);
    }

    /** An interval of 10 s that acknowledged these bytes. */
    public static IntervalStats interval(
            double busy, double rwnd, double sndbuf, long bytesAcked, long retrans, long segments) {
        long busyMicros = (long) (busy * 10_000_000);
        return IntervalStats.over(10)
                .busyMicros(busyMicros)
                .rwndLimitedMicros((long) (rwnd * busyMicros))
                .sndbufLimitedMicros((long) (sndbuf * busyMicros))
                .retransmittedSegments(retrans)
                .segmentsOut(segments)
                .bytesAcked(bytesAcked)
                .build();
    }
}
