package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.config.InvalidSettingException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/**
 * Who may use the endpoint and what they see: TLS with the JDK's own stack, a bearer token or
 * basic auth read from a file, an address allowlist, and a redacted mode without principals and
 * addresses. Everything is off unless set; loopback binding stays the default protection.
 */
public final class EndpointAccess {
    public static final String TLS_KEYSTORE = TlsKeyFiles.KEYSTORE;
    public static final String TLS_KEYSTORE_PASSWORD_FILE = TlsKeyFiles.KEYSTORE_PASSWORD_FILE;
    public static final String TLS_CERT = TlsKeyFiles.CERT;
    public static final String TLS_KEY = TlsKeyFiles.KEY;
    public static final String AUTH_TOKEN_FILE = "http.auth.token.file";
    public static final String AUTH_BASIC_FILE = "http.auth.basic.file";
    public static final String ALLOW = "http.allow";
    public static final String REDACT = "http.redact";
    public static final List<String> KEYS = List.of(
            TLS_KEYSTORE,
            TLS_KEYSTORE_PASSWORD_FILE,
            TLS_CERT,
            TLS_KEY,
            AUTH_TOKEN_FILE,
            AUTH_BASIC_FILE,
            ALLOW,
            REDACT);

    /** Nothing asked for: plain HTTP, anyone who can reach the port (loopback by default). */
    public static final EndpointAccess OPEN = new EndpointAccess(null, null, null, List.of(), false);

    private final SSLContext tls;
    /** The whole Authorization header value a request must carry, as bytes; null when none is asked for. */
    private final byte[] authorization;

    private final String challenge;
    private final List<AddressRange> allow;
    private final boolean redacted;

    private EndpointAccess(
            SSLContext tls, byte[] authorization, String challenge, List<AddressRange> allow, boolean redacted) {
        this.tls = tls;
        this.authorization = authorization;
        this.challenge = challenge;
        this.allow = allow;
        this.redacted = redacted;
    }

    /**
     * From the agent's settings (the keys of {@link #KEYS}, without the tcpsight. prefix). Reads the
     * files now, so that a missing or malformed one is one clear error at start.
     *
     * @throws InvalidSettingException naming the key, its value (masked when secret) and what is allowed
     */
    public static EndpointAccess from(Map<String, String> settings) {
        check(settings, true);
        SSLContext tls = TlsKeyFiles.context(settings);
        String token = settings.get(AUTH_TOKEN_FILE);
        String basic = settings.get(AUTH_BASIC_FILE);
        byte[] authorization = null;
        String challenge = null;
        if (token != null) {
            String secret =
                    SecretFiles.firstLine(AUTH_TOKEN_FILE, token, "a file whose first line is the bearer token");
            authorization = ("Bearer " + secret).getBytes(StandardCharsets.UTF_8);
            challenge = "Bearer realm=\"tcpsight\"";
        } else if (basic != null) {
            String secret = SecretFiles.firstLine(AUTH_BASIC_FILE, basic, "a file whose first line is user:password");
            if (secret.indexOf(':') <= 0) {
                throw new InvalidSettingException(
                        AUTH_BASIC_FILE, basic, "a file whose first line is user:password (no colon found)");
            }
            authorization = ("Basic " + Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)))
                    .getBytes(StandardCharsets.UTF_8);
            challenge = "Basic realm=\"tcpsight\", charset=\"UTF-8\"";
        }
        return new EndpointAccess(
                tls,
                authorization,
                challenge,
                allowed(settings),
                settings.getOrDefault(REDACT, "false").equals("true"));
    }

    /**
     * What {@link #from} checks without reading a file: which keys go together, the allowlist and
     * the redaction switch. {@code whole} when these are all the settings there are: a key that
     * needs another (a TLS key file without its pair) is judged only then.
     *
     * @throws InvalidSettingException naming the key, its value (masked when secret) and what is allowed
     */
    public static void check(Map<String, String> settings, boolean whole) {
        if (whole) {
            TlsKeyFiles.checkPairs(settings);
        }
        String basic = settings.get(AUTH_BASIC_FILE);
        if (settings.get(AUTH_TOKEN_FILE) != null && basic != null) {
            throw new InvalidSettingException(
                    AUTH_BASIC_FILE, basic, "one of " + AUTH_TOKEN_FILE + " and " + AUTH_BASIC_FILE + ", not both");
        }
        allowed(settings);
        String redact = settings.getOrDefault(REDACT, "false");
        if (!redact.equals("true") && !redact.equals("false")) {
            throw new InvalidSettingException(REDACT, redact, "true or false");
        }
    }

    /** The allowlist's ranges; empty when none is set (everyone who reaches the port). */
    private static List<AddressRange> allowed(Map<String, String> settings) {
        List<AddressRange> allow = new ArrayList<>();
        String ranges = settings.get(ALLOW);
        if (ranges != null) {
            for (String range : ranges.split(";")) {
                if (!range.trim().isEmpty()) {
                    allow.add(AddressRange.parse(ALLOW, range.trim()));
                }
            }
            if (allow.isEmpty()) {
                throw new InvalidSettingException(ALLOW, ranges, "addresses or CIDR ranges separated by ';'");
            }
        }
        return List.copyOf(allow);
    }

    public boolean tls() {
        return tls != null;
    }

    /** A server-side engine for one connection. */
    SSLEngine newEngine() {
        SSLEngine engine = tls.createSSLEngine();
        engine.setUseClientMode(false);
        return engine;
    }

    boolean allows(InetAddress peer) {
        if (allow.isEmpty()) {
            return true;
        }
        for (AddressRange range : allow) {
            if (range.contains(peer)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a request with this Authorization header value (null when absent) may be answered. */
    boolean authorized(String header) {
        return authorization == null
                || (header != null
                        && MessageDigest.isEqual(authorization, header.trim().getBytes(StandardCharsets.UTF_8)));
    }

    /** The WWW-Authenticate value of a 401. */
    Optional<String> challenge() {
        return Optional.ofNullable(challenge);
    }

    public boolean redacted() {
        return redacted;
    }

    /** Whether anything but the address it binds to keeps strangers out. */
    public boolean restricted() {
        return tls != null || authorization != null || !allow.isEmpty();
    }

    /** For the startup line: what is on, never a secret. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (tls != null) {
            parts.add("TLS");
        }
        if (challenge != null) {
            parts.add(challenge.startsWith("Bearer") ? "bearer token" : "basic auth");
        }
        if (!allow.isEmpty()) {
            parts.add(allow.size() + " allowed address range" + (allow.size() == 1 ? "" : "s"));
        }
        if (redacted) {
            parts.add("principals and addresses redacted");
        }
        return String.join(", ", parts);
    }
}
