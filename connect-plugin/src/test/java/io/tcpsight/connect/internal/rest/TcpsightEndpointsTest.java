package io.tcpsight.connect.internal.rest;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.connect.internal.observation.WorkerObservation;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** tcpsight.rest.redact reaches the answers of /tcpsight/findings. */
class TcpsightEndpointsTest {
    @Test
    void aRedactedWorkerAnswersWithoutPrincipalsOrAddresses() {
        WorkerObservation observation = new WorkerObservation(
                Map.of("bootstrap.servers", "10.0.0.2:9092"), TcpsightConfig.defaults(), () -> null, "redact-test");
        ConnectionIdentity connection = ConnectionIdentity.of(
                        Role.CLIENT, new InetSocketAddress("10.0.0.1", 50000), new InetSocketAddress("10.0.0.2", 9092))
                .withClientId("connector-consumer-sink-0")
                .withPrincipal("User:alice");
        Finding finding = new Finding(
                RuleId.SMALL_RECEIVE_BUFFER,
                Severity.CRITICAL,
                connection,
                List.of(new Evidence("rtt", 100, "ms")),
                new Remedy(List.of(), "from 10.0.0.1:50000 to 10.0.0.2:9092"));
        observation.monitor().board().publish(List.of(finding), System.currentTimeMillis());
        String plain = new TcpsightEndpoints(observation, false).findings();
        String redacted = new TcpsightEndpoints(observation, true).findings();
        assertTrue(plain.contains("10.0.0.1:50000") && plain.contains("User:alice"), plain);
        assertFalse(
                redacted.contains("10.0.0.1") || redacted.contains("10.0.0.2") || redacted.contains("alice"), redacted);
        assertTrue(redacted.contains("connector-consumer-sink-0"), "the client.id stays: " + redacted);
    }
}
