package io.tcpsight.agent.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The request line of an HTTP/1.x head, once the whole head (up to its blank line) has arrived. */
final class RequestHead {
    private RequestHead() {}

    /** Method, path and query (null when none) of a complete head. */
    static final class Parsed {
        private final String method;
        private final String path;
        private final String query;

        Parsed(String method, String path, String query) {
            this.method = method;
            this.path = path;
            this.query = query;
        }

        String method() {
            return method;
        }

        String path() {
            return path;
        }

        String query() {
            return query;
        }
    }

    /**
     * The parsed request line, or null while the head is incomplete. {@code received} is in write
     * mode (position = bytes so far). A malformed request line parses as method "?" so that it is
     * refused like any other method.
     */
    static Parsed parse(ByteBuffer received) {
        int length = received.position();
        byte[] bytes = received.array();
        int end = -1;
        for (int i = 0; i + 1 < length; i++) {
            if (bytes[i] == '\n'
                    && (bytes[i + 1] == '\n' || (bytes[i + 1] == '\r' && i + 2 < length && bytes[i + 2] == '\n'))) {
                end = i;
                break;
            }
        }
        if (end < 0) {
            return null;
        }
        int lineEnd = 0;
        while (lineEnd < end && bytes[lineEnd] != '\r' && bytes[lineEnd] != '\n') {
            lineEnd++;
        }
        String[] parts = new String(bytes, 0, lineEnd, StandardCharsets.ISO_8859_1).split(" ");
        if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
            return new Parsed("?", "", null);
        }
        String target = parts[1];
        int question = target.indexOf('?');
        return question < 0
                ? new Parsed(parts[0], target, null)
                : new Parsed(parts[0], target.substring(0, question), target.substring(question + 1));
    }
}
