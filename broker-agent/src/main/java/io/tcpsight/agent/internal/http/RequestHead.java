package io.tcpsight.agent.internal.http;

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
        private final String authorization;

        Parsed(String method, String path, String query, String authorization) {
            this.method = method;
            this.path = path;
            this.query = query;
            this.authorization = authorization;
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

        /** The Authorization header's value, or null when the head has none. */
        String authorization() {
            return authorization;
        }
    }

    /**
     * The parsed request line, or null while the head is incomplete. {@code received} is in write
     * mode (position = bytes so far). A malformed request line parses as method "?" so that it is
     * refused like any other method.
     */
    static Parsed parse(ByteBuffer received) {
        return parse(received, 0);
    }

    /**
     * The same, looking for the head's end only from {@code from}: a head that arrives a byte at a
     * time is scanned once, not once per byte.
     */
    static Parsed parse(ByteBuffer received, int from) {
        int length = received.position();
        byte[] bytes = received.array();
        int end = -1;
        for (int i = Math.max(0, from); i + 1 < length; i++) {
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
            return new Parsed("?", "", null, null);
        }
        String authorization = header(bytes, lineEnd, end, "authorization:");
        String target = parts[1];
        int question = target.indexOf('?');
        return question < 0
                ? new Parsed(parts[0], target, null, authorization)
                : new Parsed(parts[0], target.substring(0, question), target.substring(question + 1), authorization);
    }

    /** The value of the first header named {@code name} (lower case, with its colon) in bytes [from, to). */
    private static String header(byte[] bytes, int from, int to, String name) {
        String lines = new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
        for (String line : lines.split("\r?\n")) {
            if (line.regionMatches(true, 0, name, 0, name.length())) {
                return line.substring(name.length()).trim();
            }
        }
        return null;
    }
}
