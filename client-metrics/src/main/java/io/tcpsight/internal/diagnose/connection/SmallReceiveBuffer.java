package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.autotunedAfter;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.doesNotBind;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.flow;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.longPath;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.rmemFor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The small-receive-buffer rule. */
public final class SmallReceiveBuffer implements ConnectionRule {
    public static final ConnectionRule RULE = new SmallReceiveBuffer();

    private SmallReceiveBuffer() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        Optional<Long> ceiling = WindowModel.windowCeiling(facts);
        if (!facts.established() || !longPath(facts, config) || !ceiling.isPresent()) {
            return Optional.empty();
        }
        Optional<WindowModel.Verdict> verdict = WindowModel.judge(
                ceiling.get(), new Evidence("windowCeiling", ceiling.get(), "bytes"), facts.rttMicros(), config);
        if (!verdict.isPresent()) {
            return Optional.empty();
        }
        List<Evidence> evidence = verdict.get().evidence;
        facts.receiveBufferBytes().ifPresent(bytes -> evidence.add(new Evidence("SO_RCVBUF", bytes, "bytes")));
        facts.windowClampBytes().ifPresent(bytes -> evidence.add(new Evidence("TCP_WINDOW_CLAMP", bytes, "bytes")));
        facts.kafka()
                .receiveBufferBytes()
                .ifPresent(bytes -> evidence.add(new Evidence("configuredReceiveBuffer", bytes, "bytes")));
        BulkFlow flow = facts.identity().bulkFlow();
        evidence.add(flow(flow));
        boolean binds = flow.arrivesAt(facts.identity().role());
        // an application that already autotunes is held by the host: the remedy is the sysctl alone
        boolean autotuned = facts.kafka().receiveBufferBytes().orElse(0) < 0;
        Optional<Setting> rmem = rmemFor(facts, config);
        List<Setting> settings = new ArrayList<>();
        if (!autotuned || rmem.isEmpty()) {
            settings.addAll(KafkaKeys.ownReceiveBuffer(facts.identity(), Setting.AUTOTUNE));
        }
        rmem.ifPresent(settings::add);
        String why = autotuned && rmem.isPresent()
                ? String.format(
                        "the receive buffer autotunes, but this host's net.ipv4.tcp_rmem max (%d bytes) lets the window "
                                + "reach at most %d bytes, which moves at most %.1f Mbit/s over %.1f ms: the host limit is "
                                + "the one to raise",
                        facts.kernel().tcpRmemMax().orElse(0),
                        ceiling.get(),
                        verdict.get().ceilingMbit(),
                        facts.rttMillis())
                : String.format(
                        "a window of at most %d bytes moves at most %.1f Mbit/s over %.1f ms; autotuning lets the kernel "
                                + "grow the window to the path's bandwidth-delay product",
                        ceiling.get(), verdict.get().ceilingMbit(), facts.rttMillis());
        Optional<Finding> finding = found(
                RuleId.SMALL_RECEIVE_BUFFER,
                binds ? verdict.get().severity : Severity.INFO,
                facts.identity(),
                evidence,
                settings,
                binds ? why : doesNotBind(why, flow, "arrives at"));
        if (!binds) {
            return finding; // a window the bulk data does not fill limits no flow
        }
        Limit limit = new Limit(
                Limit.RECEIVE_WINDOW,
                verdict.get().ceilingBytesPerSecond,
                autotunedAfter(rmem, facts.kernel().tcpRmemMax(), facts, config));
        return finding.map(named -> named.withLimit(limit));
    }
}
