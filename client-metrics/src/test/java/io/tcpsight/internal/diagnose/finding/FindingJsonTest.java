package io.tcpsight.internal.diagnose.finding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.connection.SmallReceiveBuffer;
import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.List;
import org.junit.jupiter.api.Test;

class FindingJsonTest {

    @Test
    void aFindingSerialisesWithTheContractsFieldNames() {
        Finding finding = SmallReceiveBuffer.RULE
                .judge(RuleFacts.smallBufferConsumer(100).build(), TcpsightConfig.defaults())
                .get();
        String json = FindingJson.of(finding);
        assertTrue(
                json.startsWith(
                        "{\"rule\":\"small-receive-buffer\",\"severity\":\"critical\",\"connection\":{\"role\":\"client\","
                                + "\"clientId\":\"consumer-g-1\",\"nodeId\":\"1\",\"local\":\"10.0.0.1:50000\",\"remote\":\"10.0.0.2:9092\"},"
                                + "\"evidence\":{\"rtt\":{\"value\":100,\"unit\":\"ms\"},\"windowCeiling\":{\"value\":65536,\"unit\":\"bytes\"},"),
                json);
        assertTrue(
                json.contains(
                        "\"remedy\":{\"settings\":[{\"scope\":\"client\",\"library\":\"java\",\"key\":\"receive.buffer.bytes\",\"value\":\"-1\"}],\"why\":\"a window of"),
                json);
        assertTrue(
                json.endsWith(",\"limit\":{\"name\":\"receive window\",\"now\":{\"value\":5.2,\"unit\":\"Mbit/s\"}"
                        + ",\"after\":{\"value\":1342,\"unit\":\"Mbit/s\"}}}"),
                json);
        assertEquals("[" + json + "," + json + "]", FindingJson.array(List.of(finding, finding)));
        assertEquals("[]", FindingJson.array(List.of()));
    }

    /**
     * The rate after all remedies is one evidence item and the end of the why in the JSON that the
     * agent's /findings, the reporter's JMX and the doctor's --json all serve.
     */
    @Test
    void theRateAfterAllRemediesIsEvidenceAndTheEndOfTheWhy() {
        List<Finding> round = Diagnosis.connection(
                RuleFacts.smallBufferConsumer(100).established(true).build(), TcpsightConfig.defaults());
        String json = FindingJson.of(round.get(0));
        assertTrue(json.contains(",\"expectedRateAfterAll\":{\"value\":90.2,\"unit\":\"Mbit/s\"}},"), json);
        assertTrue(json.contains("; expected after all: 90.2 Mbit/s\"},\"limit\":{"), json);
        // 64 KiB over 100 ms now; after, half the host's 32 MiB tcp_rmem max over 100 ms (Limit.autotunedWindowRate)
        assertTrue(
                json.endsWith(",\"limit\":{\"name\":\"receive window\",\"now\":{\"value\":5.2,\"unit\":\"Mbit/s\"}"
                        + ",\"after\":{\"value\":1342,\"unit\":\"Mbit/s\"}}}"),
                json);
        assertTrue(
                round.get(0).logLine().contains("expectedRateAfterAll=90.2 Mbit/s"),
                round.get(0).logLine());
    }

    /** A finding that names no limit has no "limit" object. */
    @Test
    void aFindingWithoutALimitHasNoLimitObject() {
        Finding finding = SmallReceiveBuffer.RULE
                .judge(RuleFacts.smallBufferConsumer(100).build(), TcpsightConfig.defaults())
                .get();
        Finding limited = finding.withLimit(new Limit("fetch size", 1_000_000, 4_000_000));
        assertFalse(FindingJson.of(new Finding(
                        finding.rule(), finding.severity(), finding.connection(), finding.evidence(), finding.remedy()))
                .contains("\"limit\""));
        assertTrue(
                FindingJson.of(limited)
                        .endsWith(",\"limit\":{\"name\":\"fetch size\",\"now\":{\"value\":8,\"unit\":\"Mbit/s\"},"
                                + "\"after\":{\"value\":32,\"unit\":\"Mbit/s\"}}}"),
                FindingJson.of(limited));
    }

    /** The endpoint's redacted mode: no address or principal anywhere, in fields or in words. */
    @Test
    void aRedactedFindingNamesTheClientButNoAddressOrPrincipal() {
        Finding finding = SmallReceiveBuffer.RULE
                .judge(RuleFacts.smallBufferConsumer(100).build(), TcpsightConfig.defaults())
                .get();
        String plain = FindingJson.array(List.of(finding));
        String redacted = FindingJson.array(List.of(finding), true);
        assertTrue(plain.contains("10.0.0.2"), plain);
        assertFalse(redacted.contains("10.0.0.1") || redacted.contains("10.0.0.2"), redacted);
        assertTrue(redacted.contains("\"clientId\":\"consumer-g-1\""), redacted);
        ConnectionIdentity alice = finding.connection().withPrincipal("User:alice");
        assertEquals(
                "window to (redacted) ((redacted)) for (redacted), from (redacted)",
                FindingJson.redact("window to 10.0.0.2:9092 (10.0.0.2) for User:alice, from 10.0.0.1", alice));
    }

    @Test
    void stringsAreEscaped() {
        StringBuilder json = new StringBuilder();
        JsonText.string(json, "a\"b\\c\nd\u0001");
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", json.toString());
        StringBuilder number = new StringBuilder();
        JsonText.value(number, Double.NaN);
        assertEquals("null", number.toString());
    }
}
