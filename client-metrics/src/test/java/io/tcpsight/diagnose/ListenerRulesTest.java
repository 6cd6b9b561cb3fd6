package io.tcpsight.diagnose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.ListenerFacts;
import io.tcpsight.model.Role;
import java.net.InetSocketAddress;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ListenerRulesTest {
    static final ConnectionIdentity LISTENER = ConnectionIdentity.of(
                    Role.BROKER, new InetSocketAddress("0.0.0.0", 9092), null, Instant.EPOCH)
            .withListener("PLAINTEXT")
            .withNodeId("1");

    static ListenerFacts facts(long queue, long backlog, Long overflows, Long drops, Long cookies, Long timestamps) {
        return ListenerFacts.builder(LISTENER, queue, backlog)
                .configuredBacklog(50)
                .somaxconn(4096L)
                .rises(overflows, drops, cookies)
                .hostTimestamps(timestamps)
                .build();
    }

    @Test
    void aQueueNearItsBacklogWarnsAndAnOverflowIsCritical() {
        Finding near = ListenerRules.listenBacklogOverflow(facts(40, 50, 0L, 0L, 0L, 1L), TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.WARN, near.severity());
        assertEquals("1024", ConnectionRulesTest.settings(near).get("broker:socket.listen.backlog.size"));
        assertFalse(
                ConnectionRulesTest.settings(near).containsKey("sysctl:net.core.somaxconn"), "4096 already >= 1024");
        assertEquals("PLAINTEXT", near.connection().listener().orElseThrow());
        Finding overflow = ListenerRules.listenBacklogOverflow(
                        facts(0, 50, 12L, 12L, null, 1L), TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.CRITICAL, overflow.severity());
        assertEquals(12L, overflow.evidence("ListenOverflows").get().value());
        assertTrue(
                overflow.remedy()
                        .why()
                        .startsWith("the accept queue holds min(socket.listen.backlog.size 50, net.core.somaxconn 4096)"
                                + " = 50 connections"),
                overflow.remedy().why());
        assertTrue(
                overflow.remedy().why().contains("to 1024"), overflow.remedy().why());
        assertFalse(ListenerRules.listenBacklogOverflow(facts(39, 50, 0L, 0L, 0L, 1L), TcpsightConfig.defaults())
                .isPresent());
        assertFalse(ListenerRules.listenBacklogOverflow(facts(0, 50, null, null, null, null), TcpsightConfig.defaults())
                .isPresent());
    }

    @Test
    void aLargerBacklogNeedsSomaxconnToo() {
        ListenerFacts small = ListenerFacts.builder(LISTENER, 500, 512)
                .configuredBacklog(512)
                .somaxconn(512L)
                .rises(3L, 3L, null)
                .hostTimestamps(1L)
                .build();
        Finding finding = ListenerRules.listenBacklogOverflow(small, TcpsightConfig.defaults())
                .get();
        assertEquals("2048", ConnectionRulesTest.settings(finding).get("broker:socket.listen.backlog.size"));
        assertEquals("2048", ConnectionRulesTest.settings(finding).get("sysctl:net.core.somaxconn"));
    }

    @Test
    void synCookiesWarnAndAreCriticalWhenThisHostHasTimestampsOff() {
        Finding cookies = ListenerRules.synCookies(facts(0, 50, 0L, 0L, 62L, 1L), TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.WARN, cookies.severity());
        assertEquals("1", ConnectionRulesTest.settings(cookies).get("sysctl:net.ipv4.tcp_timestamps"));
        assertTrue(cookies.remedy().why().contains("timestamp"));
        assertEquals(
                Severity.CRITICAL,
                ListenerRules.synCookies(facts(0, 50, 0L, 0L, 1L, 0L), TcpsightConfig.defaults())
                        .get()
                        .severity());
        assertFalse(ListenerRules.synCookies(facts(0, 50, 0L, 0L, 0L, 1L), TcpsightConfig.defaults())
                .isPresent());
    }
}
