package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReadaptationTest {
    @Test
    void theRestUrlComesFromTheFirstListenerWithWildcardsOnLoopback() {
        assertEquals(URI.create("http://127.0.0.1:8083"), Readaptation.restUrl(Map.of(), ""));
        assertEquals(
                URI.create("http://127.0.0.1:8084"),
                Readaptation.restUrl(Map.of("listeners", "http://0.0.0.0:8084,https://x:9"), ""));
        assertEquals(
                URI.create("https://worker-1:8443"),
                Readaptation.restUrl(Map.of("listeners", "https://worker-1:8443"), ""));
        assertEquals(
                URI.create("http://elsewhere:1"),
                Readaptation.restUrl(Map.of("listeners", "http://a:2"), "http://elsewhere:1"));
    }
}
