package io.tcpsight.doctor.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.doctor.SilentListener;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** How long the fleet asks a cluster for its brokers: as the user's Admin config says, not the agents' timeout. */
class FleetMembersTest {
    @Test
    void aClusterThatNeverAnswersIsGivenUpAtTheConfigsApiTimeoutAndSaidSo() throws Exception {
        // a listener that accepts and never answers: the Admin client's requests time out, it does not fail fast
        try (SilentListener silent = new SilentListener()) {
            Properties admin = new Properties();
            admin.setProperty("bootstrap.servers", "127.0.0.1:" + silent.port());
            admin.setProperty("default.api.timeout.ms", "1500");
            admin.setProperty("request.timeout.ms", "1000");
            IllegalStateException unanswered =
                    assertThrows(IllegalStateException.class, () -> FleetMembers.brokers(admin));
            assertTrue(
                    unanswered
                            .getMessage()
                            .startsWith("the cluster at 127.0.0.1:" + silent.port()
                                    + " did not list its brokers within 1500 ms (default.api.timeout.ms): "),
                    unanswered.getMessage());
            // the Admin client's own timeout ended it (Kafka's exception), not the margin behind it (the JDK's)
            assertTrue(
                    unanswered.getMessage().contains("org.apache.kafka.common.errors.TimeoutException"),
                    unanswered.getMessage());
        }
    }

    @Test
    void withoutTheKeyTheAdminClientsOwnTimeoutIsWaited() {
        Properties admin = new Properties();
        assertEquals(60_000, FleetMembers.apiTimeoutMs(admin));
        // the Admin client raises its own default to a longer request.timeout.ms, and so does the wait
        admin.setProperty("request.timeout.ms", "90000");
        assertEquals(90_000, FleetMembers.apiTimeoutMs(admin));
        admin.setProperty("request.timeout.ms", "1000");
        assertEquals(60_000, FleetMembers.apiTimeoutMs(admin));
        admin.setProperty("default.api.timeout.ms", " 20000 ");
        assertEquals(20_000, FleetMembers.apiTimeoutMs(admin));
    }
}
