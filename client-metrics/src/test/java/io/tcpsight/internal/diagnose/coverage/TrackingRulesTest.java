package io.tcpsight.internal.diagnose.coverage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.Role;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrackingRulesTest {
    @Test
    void everyConnectionWatchedIsNoFinding() {
        assertTrue(TrackingRules.untrackedConnections(Map.of(), 9_000, 10_000, Role.BROKER)
                .isEmpty());
    }

    /** 15,000 connections on two listeners, 10,000 tracked: each listener says how many of its own go unwatched. */
    @Test
    void eachListenerSaysHowManyOfItsConnectionsGoUnwatched() {
        Map<String, Long> untracked = new LinkedHashMap<>();
        untracked.put("PLAINTEXT", 4_900L);
        untracked.put("SSL", 100L);
        List<Finding> findings = TrackingRules.untrackedConnections(untracked, 10_000, 10_000, Role.BROKER);
        assertEquals(2, findings.size());
        Finding plaintext = findings.get(0);
        assertEquals(RuleId.UNTRACKED_CONNECTIONS, plaintext.rule());
        assertEquals(Severity.WARN, plaintext.severity());
        assertEquals("PLAINTEXT", plaintext.connection().listener().orElseThrow());
        assertEquals(4_900L, plaintext.evidence("untracked").get().value());
        assertEquals(5_000L, plaintext.evidence("untrackedInAll").get().value());
        assertEquals(
                "19000", // 15,000 open and a quarter more, to two significant digits
                RuleFacts.settings(plaintext).get("tcpsight:tcpsight.max.tracked.connections"));
        assertTrue(
                plaintext
                        .remedy()
                        .why()
                        .startsWith("4900 connection(s) on listener PLAINTEXT are open but not watched"),
                plaintext.remedy().why());
        assertEquals("SSL", findings.get(1).connection().listener().orElseThrow());
    }

    @Test
    void aClientsOwnConnectionsNameNoListenerAndTheAdviceStaysInRange() {
        Finding own = TrackingRules.untrackedConnections(Map.of("", 900_000L), 1_000_000, 1_000_000, Role.CLIENT)
                .get(0);
        assertTrue(own.connection().listener().isEmpty());
        assertEquals("client", own.connection().role().label());
        assertEquals("1000000", RuleFacts.settings(own).get("tcpsight:tcpsight.max.tracked.connections"));
    }

    @Test
    void adviceReadsAsASetting() {
        assertEquals(19_000, TrackingRules.roundUp(18_750));
        assertEquals(99, TrackingRules.roundUp(99));
        assertEquals(130_000, TrackingRules.roundUp(125_001));
    }
}
