package io.tcpsight.doctor;

import io.tcpsight.diagnose.Finding;
import io.tcpsight.diagnose.Severity;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.tuning.FetchSizing;
import java.util.List;
import java.util.Map;

/**
 * Everything one doctor run found, for the human report and for --json.
 *
 * @param brokerConfigs node id -> the broker's socket settings, where DescribeConfigs was allowed
 * @param configured the client settings judged, as configured (or Kafka's consumer defaults), secrets masked
 * @param recommendation sizing for the slowest broker's RTT; null when no broker answered
 */
record DoctorReport(String target, String targetNote, HostTcpFacts host, List<BrokerPaths.BrokerPath> brokers,
        Map<String, Map<String, String>> brokerConfigs,
        Map<String, String> configured, String configSource, double targetMbit, FetchSizing.Recommendation recommendation,
        String probeTopic, List<ThroughputProbe.Result> probe, List<Finding> findings) {

    /** 0 healthy (no finding, or info only), 1 when a warn or critical finding stands. */
    int exitCode() {
        return findings.stream().anyMatch(finding -> finding.severity() != Severity.INFO) ? ExitCodes.FINDINGS : ExitCodes.HEALTHY;
    }
}
