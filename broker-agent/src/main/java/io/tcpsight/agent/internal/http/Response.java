package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.export.ConnectionJson;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** A whole answer: status line, headers and body, sent once and followed by close. */
final class Response {
    static final Response GET_ONLY = text(405, "GET only\n");
    static final Response BUSY = text(503, "busy; try again\n");
    static final Response BAD_REQUEST = text(400, "not an HTTP/1.x request line\n");
    static final Response NOT_FOUND = text(404, "not found; try /metrics, /findings or /connections?top=20\n");
    static final Response TOP_NOT_ALLOWED = text(400, ConnectionJson.TOP_NOT_ALLOWED);

    private final int status;
    private final String type;
    /** Shared between every answer that uses it: sent through read-only views, never copied. */
    private final byte[] body;

    private final int length;
    private final byte[] tail;
    /** Header lines beyond the usual ones, each ending in CRLF. */
    private final String extraHeaders;

    Response(int status, String type, byte[] body) {
        this(status, type, body, body.length, new byte[0]);
    }

    /** The first {@code length} bytes of a shared body, then {@code tail}. */
    Response(int status, String type, byte[] body, int length, byte[] tail) {
        this(status, type, body, length, tail, status == 405 ? "Allow: GET, HEAD\r\n" : "");
    }

    private Response(int status, String type, byte[] body, int length, byte[] tail, String extraHeaders) {
        this.status = status;
        this.type = type;
        this.body = body;
        this.length = length;
        this.tail = tail;
        this.extraHeaders = extraHeaders;
    }

    static Response unauthorized(String challenge) {
        byte[] body = "authorization required\n".getBytes(StandardCharsets.UTF_8);
        return new Response(
                401,
                "text/plain; charset=utf-8",
                body,
                body.length,
                new byte[0],
                "WWW-Authenticate: " + challenge + "\r\n");
    }

    static Response text(int status, String body) {
        return new Response(status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    static Response json(String body) {
        return new Response(200, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }

    int status() {
        return status;
    }

    /** The same answer with the first {@code length} bytes of its body, then {@code tail}: a view, not a copy. */
    Response firstBytes(int length, byte[] tail) {
        return new Response(status, type, body, length, tail);
    }

    ByteBuffer[] buffers(boolean headOnly) {
        byte[] head = ("HTTP/1.1 " + status + " " + reason() + "\r\nContent-Type: " + type + "\r\nContent-Length: "
                        + (length + tail.length) + "\r\n" + extraHeaders
                        + "Connection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        if (headOnly) {
            return new ByteBuffer[] {ByteBuffer.wrap(head)};
        }
        return new ByteBuffer[] {
            ByteBuffer.wrap(head),
            ByteBuffer.wrap(body, 0, length).asReadOnlyBuffer(),
            ByteBuffer.wrap(tail).asReadOnlyBuffer()
        };
    }

    private String reason() {
        switch (status) {
            case 200:
                return "OK";
            case 400:
                return "Bad Request";
            case 401:
                return "Unauthorized";
            case 404:
                return "Not Found";
            case 405:
                return "Method Not Allowed";
            case 431:
                return "Request Header Fields Too Large";
            case 503:
                return "Service Unavailable";
            default:
                return "Internal Server Error";
        }
    }
}
