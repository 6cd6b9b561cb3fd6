package io.tcpsight.doctor;

import io.tcpsight.internal.diagnose.connection.ExpectedRate;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.tuning.BdpSettings;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one doctor run found, for the human report and for --json.
 *
 * @param brokerConfigs node id -> the broker's socket settings, where DescribeConfigs was allowed
 * @param configured the client settings judged, as configured (or Kafka's consumer defaults), secrets masked
 * @param recommendation sizing for the slowest broker's RTT; empty when no broker answered
 * @param clientRole "producer" or "consumer": what the config was judged as
 * @param clientPath the limits the client with the judged config meets on the slowest broker's path, in order, and
 *     the rate after all their remedies; empty when no broker answered
 * @param probeNote why consume throughput was not measured, or empty
 * @param writeProbeNote why produce throughput was not measured, or empty
 * @param writeProbeOwnConnections each write variant's own connection judged as the agent judges a producer, in the
 *     order of {@code writeProbe} (a producer's config only; else empty)
 */
record DoctorReport(
        String target,
        String targetNote,
        HostTcpFacts host,
        List<BrokerPaths.BrokerPath> brokers,
        Map<String, Map<String, String>> brokerConfigs,
        Map<String, String> configured,
        String configSource,
        double targetMbit,
        Optional<BdpSettings.Recommendation> recommendation,
        String clientRole,
        Optional<ExpectedRate> clientPath,
        String probeTopic,
        List<ThroughputProbe.Result> probe,
        String probeNote,
        List<ThroughputProbe.Result> writeProbe,
        String writeProbeNote,
        List<WriteProbe.OwnConnection> writeProbeOwnConnections,
        List<Finding> findings) {

    static Builder builder(String target) {
        return new Builder(target);
    }

    /** The report's parts by name, as the doctor's steps produce them. */
    static final class Builder {
        private final String target;
        private String targetNote = "";
        private HostTcpFacts host;
        private List<BrokerPaths.BrokerPath> brokers = List.of();
        private Map<String, Map<String, String>> brokerConfigs = Map.of();
        private Map<String, String> configured = Map.of();
        private String configSource = "";
        private double targetMbit;
        private BdpSettings.Recommendation recommendation;
        private String clientRole = "consumer";
        private ExpectedRate clientPath;
        private String probeTopic;
        private List<ThroughputProbe.Result> probe = List.of();
        private String probeNote = "";
        private List<ThroughputProbe.Result> writeProbe = List.of();
        private String writeProbeNote = "";
        private List<WriteProbe.OwnConnection> writeProbeOwnConnections = List.of();
        private List<Finding> findings = List.of();

        private Builder(String target) {
            this.target = target;
        }

        Builder targetNote(String note) {
            this.targetNote = note;
            return this;
        }

        Builder host(HostTcpFacts facts) {
            this.host = facts;
            return this;
        }

        Builder brokers(List<BrokerPaths.BrokerPath> paths, Map<String, Map<String, String>> configs) {
            this.brokers = paths;
            this.brokerConfigs = configs;
            return this;
        }

        Builder client(Map<String, String> settings, String source) {
            this.configured = settings;
            this.configSource = source;
            return this;
        }

        Builder sizing(double mbit, BdpSettings.Recommendation advice) {
            this.targetMbit = mbit;
            this.recommendation = advice;
            return this;
        }

        Builder clientPath(String role, ExpectedRate limits) {
            this.clientRole = role;
            this.clientPath = limits;
            return this;
        }

        Builder probe(String topic, List<ThroughputProbe.Result> results, String note) {
            this.probeTopic = topic;
            this.probe = results;
            this.probeNote = note;
            return this;
        }

        Builder writeProbe(WriteProbe.Measured measured, String note) {
            this.writeProbe = measured.results();
            this.writeProbeNote = note;
            this.writeProbeOwnConnections = measured.ownConnections();
            return this;
        }

        Builder findings(List<Finding> all) {
            this.findings = all;
            return this;
        }

        DoctorReport build() {
            return new DoctorReport(
                    target,
                    targetNote,
                    host,
                    brokers,
                    brokerConfigs,
                    configured,
                    configSource,
                    targetMbit,
                    Optional.ofNullable(recommendation),
                    clientRole,
                    Optional.ofNullable(clientPath),
                    probeTopic,
                    probe,
                    probeNote,
                    writeProbe,
                    writeProbeNote,
                    writeProbeOwnConnections,
                    findings);
        }
    }

    /** 0 healthy (no finding, or info only), 1 when a warn or critical finding stands. */
    int exitCode() {
        return findings.stream().anyMatch(finding -> finding.severity() != Severity.INFO)
                ? ExitCodes.FINDINGS
                : ExitCodes.HEALTHY;
    }
}
