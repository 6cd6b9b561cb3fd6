package io.tcpsight.internal.diagnose.config;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.ConnectionRuleParts;
import io.tcpsight.internal.diagnose.connection.WindowModel;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.tuning.BdpSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Rules about a broker's socket settings as its config reports them (DescribeConfigs), judged for
 * the path from a client to it. A broker sets these on every accepted socket, so they limit every
 * client whatever the client's own settings. Pure functions.
 */
public final class BrokerConfigRules {
    private BrokerConfigRules() {}

    public static List<Finding> socketBuffers(
            Map<String, String> brokerConfig, ConnectionIdentity path, long rttMicros, TcpsightConfig config) {
        List<Finding> findings = new ArrayList<>();
        sendBuffer(brokerConfig, path, rttMicros, config).ifPresent(findings::add);
        receiveBuffer(brokerConfig, path, rttMicros, config).ifPresent(findings::add);
        return findings;
    }

    /** socket.send.buffer.bytes: fetch responses to this client never have more than about that much in flight. */
    public static Optional<Finding> sendBuffer(
            Map<String, String> brokerConfig, ConnectionIdentity path, long rttMicros, TcpsightConfig config) {
        return judge(
                brokerConfig,
                "socket.send.buffer.bytes",
                RuleId.SMALL_SEND_BUFFER,
                Limit.SEND_BUFFER,
                "net.ipv4.tcp_wmem",
                "4096 16384 ",
                path,
                rttMicros,
                config,
                "fetch responses (consumers, followers)");
    }

    /** socket.receive.buffer.bytes: produce requests from this client never have more than about that much window. */
    public static Optional<Finding> receiveBuffer(
            Map<String, String> brokerConfig, ConnectionIdentity path, long rttMicros, TcpsightConfig config) {
        return judge(
                brokerConfig,
                "socket.receive.buffer.bytes",
                RuleId.SMALL_RECEIVE_BUFFER,
                Limit.RECEIVE_WINDOW,
                "net.ipv4.tcp_rmem",
                "4096 131072 ",
                path,
                rttMicros,
                config,
                "produce requests");
    }

    private static Optional<Finding> judge(
            Map<String, String> brokerConfig,
            String key,
            RuleId rule,
            String limited,
            String sysctl,
            String sysctlPrefix,
            ConnectionIdentity path,
            long rttMicros,
            TcpsightConfig config,
            String traffic) {
        Long bytes = number(brokerConfig.get(key));
        if (bytes == null || bytes <= 0 || !ConnectionRuleParts.longPath(rttMicros, config)) {
            return Optional.empty();
        }
        Optional<WindowModel.Verdict> verdict =
                WindowModel.judge(bytes, new Evidence(key, bytes, "bytes"), rttMicros, config);
        if (!verdict.isPresent()) {
            return Optional.empty();
        }
        long needed = BdpSettings.kernelBufferMax(rttMicros, config.targetBytesPerSecond());
        List<Setting> settings = List.of(
                new Setting("broker", key, "-1"), new Setting("broker-host sysctl", sysctl, sysctlPrefix + needed));
        return Optional.of(new Finding(
                        rule,
                        verdict.get().severity,
                        path,
                        verdict.get().evidence,
                        new Remedy(
                                settings,
                                String.format(
                                        "the broker sets %s=%d on every accepted socket, so %s between it and this host move at most about %.1f Mbit/s over "
                                                + "%.1f ms whatever the client's settings; -1 lets the broker's kernel autotune (its %s max must allow it)",
                                        key, bytes, traffic, verdict.get().ceilingMbit(), rttMicros / 1000.0, sysctl)))
                .withLimit(new Limit(
                        limited,
                        verdict.get().ceilingBytesPerSecond,
                        // the broker's kernel autotunes up to the max named for its host: twice the BDP of window
                        Limit.autotunedWindowRate(needed, rttMicros))));
    }

    private static Long number(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException notANumber) {
            return null;
        }
    }
}
