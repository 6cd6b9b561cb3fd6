package io.tcpsight.diagnose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.config.TcpsightConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class FindingJsonTest {

    @Test
    void aFindingSerialisesWithTheContractsFieldNames() {
        Finding finding = ConnectionRules.smallReceiveBuffer(
                        ConnectionRulesTest.smallBufferConsumer(100).build(), TcpsightConfig.defaults())
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
        assertTrue(json.endsWith("\"}}"));
        assertEquals("[" + json + "," + json + "]", FindingJson.array(List.of(finding, finding)));
        assertEquals("[]", FindingJson.array(List.of()));
    }

    @Test
    void stringsAreEscaped() {
        StringBuilder json = new StringBuilder();
        FindingJson.string(json, "a\"b\\c\nd\u0001");
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", json.toString());
        StringBuilder number = new StringBuilder();
        FindingJson.value(number, Double.NaN);
        assertEquals("null", number.toString());
    }
}
