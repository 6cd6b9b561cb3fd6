package io.tcpsight.internal.diagnose.listener;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.ListenerFacts;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ListenerRulesTest {
    static final ConnectionIdentity LISTENER = ConnectionIdentity.of(
                    Role.BROKER, new InetSocketAddress("0.0.0.0", 9092), null)
            .withListener("PLAINTEXT")
            .withNodeId("1");

    /** The namespace's listeners together: facts that name no listener. */
    static final ConnectionIdentity NAMESPACE = ConnectionIdentity.of(Role.BROKER, null, null);

    /** A listener whose own drops rose by {@code own}, with the namespace's counters beside. */
    static ListenerFacts facts(
            long queue, long backlog, Long own, Long overflows, Long drops, Long cookies, Long timestamps) {
        ListenerFacts.Builder builder = ListenerFacts.builder(LISTENER, queue, backlog)
                .configuredBacklog(50)
                .somaxconn(4096L)
                .rises(overflows, drops, cookies)
                .hostTimestamps(timestamps);
        return (own == null ? builder : builder.ownDrops(own)).build();
    }

    static ListenerFacts namespace(Long overflows, Long drops, Long cookies) {
        return ListenerFacts.builder(NAMESPACE, 0, 50)
                .configuredBacklog(50)
                .somaxconn(4096L)
                .rises(overflows, drops, cookies)
                .hostTimestamps(1L)
                .build();
    }

    @Test
    void aQueueNearItsBacklogWarnsAndAnOverflowIsCritical() {
        Finding near = ListenBacklogOverflow.RULE
                .judge(facts(40, 50, 0L, 0L, 0L, 0L, 1L), TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.WARN, near.severity());
        assertEquals("1024", RuleFacts.settings(near).get("broker:socket.listen.backlog.size"));
        assertFalse(RuleFacts.settings(near).containsKey("sysctl:net.core.somaxconn"), "4096 already >= 1024");
        assertEquals("PLAINTEXT", near.connection().listener().orElseThrow());
        Finding overflow = ListenBacklogOverflow.RULE
                .judge(facts(0, 50, 12L, 12L, 12L, null, 1L), TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.CRITICAL, overflow.severity());
        assertEquals("PLAINTEXT", overflow.connection().listener().orElseThrow());
        assertEquals(12L, overflow.evidence("listenerDrops").get().value());
        assertEquals(12L, overflow.evidence("ListenOverflows").get().value());
        assertTrue(
                overflow.remedy()
                        .why()
                        .startsWith("the accept queue holds min(socket.listen.backlog.size 50, net.core.somaxconn 4096)"
                                + " = 50 connections"),
                overflow.remedy().why());
        assertTrue(
                overflow.remedy().why().contains("to 1024"), overflow.remedy().why());
        assertFalse(ListenBacklogOverflow.RULE
                .judge(facts(39, 50, 0L, 0L, 0L, 0L, 1L), TcpsightConfig.defaults())
                .isPresent());
        assertFalse(ListenBacklogOverflow.RULE
                .judge(facts(0, 50, null, null, null, null, null), TcpsightConfig.defaults())
                .isPresent());
    }

    /** The namespace's counters cannot tell listeners apart: they name none, and a listener only by its own drops. */
    @Test
    void anOverflowNamesAListenerOnlyByItsOwnDrops() {
        assertFalse(
                ListenBacklogOverflow.RULE
                        .judge(facts(0, 50, 0L, 12L, 12L, null, 1L), TcpsightConfig.defaults())
                        .isPresent(),
                "this listener dropped nothing: the namespace's overflow was another listener's");
        assertFalse(
                ListenBacklogOverflow.RULE
                        .judge(facts(0, 50, null, 12L, 12L, null, 1L), TcpsightConfig.defaults())
                        .isPresent(),
                "without its own count a listener is not named for the namespace's overflow");
        Finding namespace = ListenBacklogOverflow.RULE
                .judge(namespace(12L, 12L, null), TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.CRITICAL, namespace.severity());
        assertTrue(
                namespace.connection().listener().isEmpty(),
                namespace.connection().describe());
        assertTrue(namespace.evidence("acceptQueue").isEmpty(), "the namespace has no one queue");
        assertEquals(50L, namespace.evidence("effectiveBacklog").get().value());
        assertFalse(ListenBacklogOverflow.RULE
                .judge(namespace(0L, 0L, 5L), TcpsightConfig.defaults())
                .isPresent());
    }

    @Test
    void aLargerBacklogNeedsSomaxconnToo() {
        ListenerFacts small = ListenerFacts.builder(LISTENER, 500, 512)
                .configuredBacklog(512)
                .somaxconn(512L)
                .rises(3L, 3L, null)
                .ownDrops(3L)
                .hostTimestamps(1L)
                .build();
        Finding finding = ListenBacklogOverflow.RULE
                .judge(small, TcpsightConfig.defaults())
                .get();
        assertEquals("2048", RuleFacts.settings(finding).get("broker:socket.listen.backlog.size"));
        assertEquals("2048", RuleFacts.settings(finding).get("sysctl:net.core.somaxconn"));
    }

    @Test
    void synCookiesWarnAndAreCriticalWhenThisHostHasTimestampsOff() {
        Finding cookies = SynCookiesSent.RULE
                .judge(facts(0, 50, 4L, 4L, 4L, 62L, 1L), TcpsightConfig.defaults())
                .get();
        assertEquals("PLAINTEXT", cookies.connection().listener().orElseThrow());
        assertEquals(Severity.WARN, cookies.severity());
        assertEquals("1", RuleFacts.settings(cookies).get("sysctl:net.ipv4.tcp_timestamps"));
        assertTrue(cookies.remedy().why().contains("timestamp"));
        assertEquals(
                Severity.CRITICAL,
                SynCookiesSent.RULE
                        .judge(facts(0, 50, 1L, 1L, 1L, 1L, 0L), TcpsightConfig.defaults())
                        .get()
                        .severity());
        assertFalse(SynCookiesSent.RULE
                .judge(facts(0, 50, 4L, 4L, 4L, 0L, 1L), TcpsightConfig.defaults())
                .isPresent());
    }

    /** Cookies are the namespace's count: a listener is named only when its own queue overflowed meanwhile. */
    @Test
    void synCookiesNameAListenerOnlyWhenItOverflowed() {
        assertFalse(SynCookiesSent.RULE
                .judge(facts(0, 50, 0L, 0L, 0L, 62L, 1L), TcpsightConfig.defaults())
                .isPresent());
        assertFalse(SynCookiesSent.RULE
                .judge(facts(0, 50, null, 3L, 3L, 62L, 1L), TcpsightConfig.defaults())
                .isPresent());
        Finding namespace = SynCookiesSent.RULE
                .judge(namespace(null, null, 62L), TcpsightConfig.defaults())
                .get();
        assertTrue(
                namespace.connection().listener().isEmpty(),
                namespace.connection().describe());
        assertEquals(62L, namespace.evidence("SyncookiesSent").get().value());
    }

    @Test
    void diagnosisRunsEveryListenerRuleInOrder() {
        assertEquals(
                List.of(RuleId.LISTEN_BACKLOG_OVERFLOW, RuleId.SYN_COOKIES),
                Diagnosis.listener(facts(0, 50, 4L, 4L, 4L, 62L, 1L), TcpsightConfig.defaults()).stream()
                        .map(Finding::rule)
                        .collect(Collectors.toList()),
                "an overflow that sent cookies: every listener rule, in the order a round runs them");
    }
}
