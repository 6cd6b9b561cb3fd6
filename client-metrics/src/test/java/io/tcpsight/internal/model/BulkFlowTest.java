package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BulkFlowTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "FETCH, TO_CLIENT",
        "SHARE_FETCH, TO_CLIENT", // KIP-932 share consumers read records like a fetch
        "PRODUCE, TO_BROKER",
        "SHARE_ACKNOWLEDGE, NONE",
        "CONSUMER_GROUP_HEARTBEAT, NONE", // KIP-848
        "SHARE_GROUP_HEARTBEAT, NONE",
        "JOIN_GROUP, NONE",
        "METADATA, NONE",
        "API_VERSIONS, NONE",
    })
    void aRequestsApiDecidesTheBulkDirectionOfItsConnection(String apiKey, BulkFlow flow) {
        assertEquals(flow, BulkFlow.ofRequest(apiKey));
    }

    @ParameterizedTest(name = "unreadable -> NONE")
    @CsvSource(
            value = {"null"},
            nullValues = "null")
    void anUnreadableApiCarriesNoBulk(String apiKey) {
        assertEquals(BulkFlow.NONE, BulkFlow.ofRequest(apiKey));
    }
}
