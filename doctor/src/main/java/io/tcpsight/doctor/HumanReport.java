package io.tcpsight.doctor;

import io.tcpsight.internal.diagnose.connection.ExpectedRate;
import io.tcpsight.internal.diagnose.connection.KernelWindowClampRegression;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.KernelVersion;
import io.tcpsight.internal.tuning.BdpSettings;
import io.tcpsight.internal.tuning.ProducerSizing;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/** The report for people: facts first, then the findings grouped by severity, each with its fix. */
final class HumanReport {
    private HumanReport() {}

    static void print(DoctorReport report, PrintStream out) {
        out.println("tcpsight doctor: " + report.target()
                + (report.targetNote().isEmpty() ? "" : " (" + report.targetNote() + ")"));
        out.println();
        host(report.host(), out);
        brokers(report, out);
        clientConfig(report, out);
        report.clientPath().ifPresent(limits -> limits(limits, report.clientRole(), report.targetMbit(), out));
        if (report.probeTopic() != null) {
            out.println(
                    "== consume throughput of topic " + report.probeTopic() + ", one run per variant, in this order");
            if (!report.probeNote().isEmpty()) {
                out.println("  " + report.probeNote());
            }
            for (ThroughputProbe.Result result : report.probe()) {
                out.println("  " + result.describe());
            }
            out.println();
            out.println("== produce throughput to topic " + report.probeTopic()
                    + ", one run per variant, in this order (" + WriteProbe.RECORD_BYTES + "-byte records)");
            if (!report.writeProbeNote().isEmpty()) {
                out.println("  " + report.writeProbeNote());
            }
            for (ThroughputProbe.Result result : report.writeProbe()) {
                out.println("  " + result.describe());
            }
            ownConnections(report, out);
            out.println();
        }
        findings(report.findings(), out);
    }

    static void host(HostTcpFacts host, PrintStream out) {
        out.println("== this host");
        String kernel = host.kernel().map(KernelVersion::release).orElse("unknown");
        String range = host.kernel()
                .map(version -> KernelWindowClampRegression.inClampRegressionRange(version)
                        ? "INSIDE the 6.6 window-clamp regression range: a fixed receive.buffer.bytes gets about half the window it asks for"
                        : "outside the 6.6 window-clamp regression range")
                .orElse("version unknown");
        out.printf("  %-36s %s (%s)%n", "kernel", kernel, range);
        out.printf(
                "  %-36s %s%n",
                "net.ipv4.tcp_rmem", host.tcpRmem().map(Object::toString).orElse("unknown"));
        out.printf(
                "  %-36s %s%n",
                "net.ipv4.tcp_wmem", host.tcpWmem().map(Object::toString).orElse("unknown"));
        out.printf("  %-36s %s%n", "net.core.rmem_max / wmem_max", text(host.rmemMax()) + " / " + text(host.wmemMax()));
        out.printf("  %-36s %s%n", "net.core.somaxconn", text(host.somaxconn()));
        out.printf(
                "  %-36s %s / %s / %s%n",
                "tcp_window_scaling / timestamps / syncookies",
                text(host.windowScaling()),
                text(host.timestamps()),
                text(host.syncookies()));
        out.printf(
                "  %-36s %s (available: %s)%n",
                "net.ipv4.tcp_congestion_control",
                host.congestionControl().orElse("unknown"),
                String.join(" ", host.availableCongestionControl()));
        for (String problem : host.problems()) {
            out.println("  (" + problem + ")");
        }
        out.println();
    }

    private static void brokers(DoctorReport report, PrintStream out) {
        out.println("== brokers (" + BrokerPaths.HANDSHAKES_PER_BROKER
                + " TCP handshakes each; RTT as the kernel measured it)");
        out.printf("  %-6s %-28s %12s %26s%n", "node", "address", "RTT", "handshake fastest/slowest");
        for (BrokerPaths.BrokerPath broker : report.brokers()) {
            String address =
                    broker.address().getHostString() + ":" + broker.address().getPort();
            if (broker.reachable()) {
                out.printf(
                        Locale.ROOT,
                        "  %-6s %-28s %12s %26s%n",
                        broker.nodeId() == null ? "?" : broker.nodeId(),
                        address,
                        millis(broker.probe().rttMicros()),
                        millis(broker.probe().fastestHandshakeMicros()) + " / "
                                + millis(broker.probe().slowestHandshakeMicros()));
            } else {
                out.printf(
                        "  %-6s %-28s unreachable: %s%n",
                        broker.nodeId() == null ? "?" : broker.nodeId(), address, broker.failure());
            }
        }
        report.brokerConfigs()
                .forEach((node, settings) -> out.println("  node " + node + " "
                        + settings.entrySet().stream()
                                .map(entry -> entry.getKey() + "=" + entry.getValue())
                                .collect(Collectors.joining(" "))));
        out.println();
    }

    private static void clientConfig(DoctorReport report, PrintStream out) {
        out.println("== client config (" + report.configSource() + ")");
        if (report.recommendation().isEmpty()) {
            out.println("  no broker answered, so nothing to size against");
            out.println();
            return;
        }
        var recommendation = report.recommendation().get();
        out.printf("  %-30s %14s %14s%n", "key", "configured", "recommended");
        if (report.clientRole().equals("producer")) {
            // a producer's own keys only: nothing of a consumer's holds what it sends
            row(
                    out,
                    "max.in.flight.requests.per.connection",
                    report.configured().get("max.in.flight.requests.per.connection"),
                    Integer.toString(ProducerSizing.IN_FLIGHT_WITH_IDEMPOTENCE));
            recommendation
                    .producer()
                    .clientSettings()
                    .forEach((key, recommended) ->
                            row(out, key, report.configured().get(key), recommended));
            out.printf(
                    Locale.ROOT,
                    "  sized for tcpsight.target.throughput.mbit=%s to the slowest broker: twice its bandwidth-delay"
                            + " product in flight, five requests of a batch per partition%n",
                    number(report.targetMbit()));
            out.println();
            return;
        }
        row(
                out,
                "receive.buffer.bytes",
                report.configured().get("receive.buffer.bytes"),
                Integer.toString(recommendation.receiveBufferBytes()));
        row(
                out,
                "fetch.max.bytes",
                report.configured().get("fetch.max.bytes"),
                Long.toString(recommendation.fetchMaxBytes()));
        row(
                out,
                "max.partition.fetch.bytes",
                report.configured().get("max.partition.fetch.bytes"),
                Long.toString(recommendation.maxPartitionFetchBytes()));
        row(
                out,
                "max.poll.records",
                report.configured().get("max.poll.records"),
                Integer.toString(recommendation.maxPollRecords()));
        recommendation
                .producer()
                .clientSettings()
                .forEach((key, recommended) -> row(out, key, report.configured().get(key), recommended));
        row(
                out,
                "net.ipv4.tcp_rmem (max)",
                report.host()
                        .tcpRmem()
                        .map(limits -> Long.toString(limits.maxBytes()))
                        .orElse("unknown"),
                ">= " + recommendation.requiredTcpRmemMax());
        reasoning(report, recommendation, out);
    }

    private static void reasoning(DoctorReport report, BdpSettings.Recommendation recommendation, PrintStream out) {
        out.printf(
                Locale.ROOT,
                "  sized for tcpsight.target.throughput.mbit=%s to the slowest broker:%n",
                number(report.targetMbit()));
        for (String reason : recommendation.reasoning()) {
            out.println("    - " + reason);
        }
        out.println();
    }

    /**
     * Every limit the client (a consumer or a producer) with the judged config meets on the
     * slowest broker's path, the one that binds first first, each with the fix its findings name and the rate once it and those before it
     * are applied, then the rate after all: what the findings' "expected after all" says.
     */
    static void limits(ExpectedRate limits, String role, double targetMbit, PrintStream out) {
        out.println("== limits a " + role + " meets on the path to the slowest broker, in the order they bind");
        out.printf(
                Locale.ROOT,
                "  now: %s (tcpsight.target.throughput.mbit=%s)%n",
                mbit(limits.nowBytesPerSecond()),
                number(targetMbit));
        int position = 0;
        for (ExpectedRate.Step step : limits.steps()) {
            position++;
            String rules = step.namedBy().stream()
                    .map(finding -> finding.rule().id())
                    .distinct()
                    .collect(Collectors.joining(", "));
            out.printf(
                    Locale.ROOT,
                    "  %d. %s: %s now%s%n",
                    position,
                    step.limit().name(),
                    mbit(step.limit().nowBytesPerSecond()),
                    rules.isEmpty() ? "" : " (" + rules + ")");
            String fix = step.namedBy().stream()
                    .flatMap(finding -> finding.remedy().settings().stream())
                    .map(Setting::describe)
                    .distinct()
                    .collect(Collectors.joining(", "));
            out.println("     fix:   "
                    + (fix.isEmpty() ? "none named: no finding on this path names a change for it" : fix));
            out.println("     then:  " + mbit(step.rateAfterBytesPerSecond()));
        }
        if (limits.steps().isEmpty()) {
            out.println("  none below the target");
        }
        out.println("  expected after all: " + mbit(limits.afterAllBytesPerSecond()));
        out.println();
    }

    private static String mbit(double bytesPerSecond) {
        return String.format(Locale.ROOT, "%.1f Mbit/s", bytesPerSecond * 8 / 1e6);
    }

    private static void row(PrintStream out, String key, String configured, String recommended) {
        out.printf("  %-30s %14s %14s%n", key, configured == null ? "default" : configured, recommended);
    }

    static void findings(List<Finding> findings, PrintStream out) {
        long critical = count(findings, Severity.CRITICAL);
        long warn = count(findings, Severity.WARN);
        long info = count(findings, Severity.INFO);
        out.println("== findings: " + critical + " critical, " + warn + " warn, " + info + " info");
        for (Severity severity : List.of(Severity.CRITICAL, Severity.WARN, Severity.INFO)) {
            for (Finding finding : findings) {
                if (finding.severity() != severity) {
                    continue;
                }
                out.println();
                finding(finding, "", out);
            }
        }
        out.println();
        out.println(
                critical + warn == 0
                        ? "healthy: nothing to change (exit 0)"
                        : (critical + warn) + " finding(s) to act on (exit 1)");
    }

    /** One finding: its severity, rule and connection, then its evidence, fix and why, each line after {@code indent}. */
    private static void finding(Finding finding, String indent, PrintStream out) {
        out.println(indent + finding.severity().label().toUpperCase(Locale.ROOT) + "  "
                + finding.rule().id() + "  [" + finding.connection().describe() + "]");
        out.println(indent + "  evidence: "
                + finding.evidence().stream().map(Evidence::describe).collect(Collectors.joining(", ")));
        out.println(indent + "  fix:      "
                + finding.remedy().settings().stream().map(Setting::describe).collect(Collectors.joining(", ")));
        out.println(indent + "  why:      " + finding.remedy().why());
    }

    /**
     * Each write variant's own connection as the agent judges a producer (its own metrics beside
     * TCP_INFO): what the producer met, measured rather than worked out from its config; for the
     * recommendation, what still holds it where it falls short.
     */
    private static void ownConnections(DoctorReport report, PrintStream out) {
        for (int i = 0;
                i < report.writeProbeOwnConnections().size()
                        && i < report.writeProbe().size();
                i++) {
            String variant = report.writeProbe().get(i).variant().label();
            WriteProbe.OwnConnection judged = report.writeProbeOwnConnections().get(i);
            if (!judged.note().isEmpty()) {
                out.println("  " + variant + ", its own connection: " + judged.note());
                continue;
            }
            List<Finding> actionable = judged.findings().stream()
                    .filter(finding -> finding.severity() != Severity.INFO)
                    .collect(Collectors.toList());
            out.println("  " + variant + ", its own connection judged as the agent judges a producer ("
                    + judged.requests() + " requests over its last three quarters): "
                    + (actionable.isEmpty() ? "nothing to change" : actionable.size() + " finding(s)"));
            for (Finding finding : actionable) {
                finding(finding, "    ", out);
            }
        }
    }

    private static long count(List<Finding> findings, Severity severity) {
        return findings.stream()
                .filter(finding -> finding.severity() == severity)
                .count();
    }

    private static String text(OptionalLong value) {
        return value.isPresent() ? Long.toString(value.getAsLong()) : "unknown";
    }

    static String millis(long micros) {
        double ms = micros / 1000.0;
        return String.format(Locale.ROOT, ms < 10 ? "%.3f ms" : "%.1f ms", ms);
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
