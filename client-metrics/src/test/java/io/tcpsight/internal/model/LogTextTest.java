package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void aForgedLineStaysOnTheLineItCameIn() {
        String clientId = "app\r\n2026-11-24 WARN tcpsight: all clear";
        assertEquals("app\\r\\n2026-11-24 WARN tcpsight: all clear", LogText.oneLine(clientId));
    }

    @Test
    void otherControlCharactersAreEscapedAndPlainTextIsUntouched() {
        assertEquals("a\\tb\\u001b[31mc\\u0000", LogText.oneLine("a\tb\u001b[31mc\u0000"));
        assertEquals("x\\u2028y", LogText.oneLine("x\u2028y"));
        String plain = "connector-consumer-orders-0 ünïcödé";
        assertSame(plain, LogText.oneLine(plain));
        assertEquals("null", LogText.oneLine((String) null));
    }

    @Test
    void placeholderArgumentsAreEscapedButThrowablesKept() {
        IllegalStateException failure = new IllegalStateException("x\ny");
        assertArrayEquals(new Object[] {"a\\nb", "7", failure}, LogText.oneLine("a\nb", 7, failure));
    }
}
