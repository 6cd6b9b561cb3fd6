package io.tcpsight.agent.http;

import io.tcpsight.config.InvalidSettingException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/**
 * Who may use the endpoint and what they see: TLS with the JDK's own stack, a bearer token or
 * basic auth read from a file, an address allowlist, and a redacted mode without principals and
 * addresses. Everything is off unless set; loopback binding stays the default protection.
 */
public final class EndpointAccess {
    public static final String TLS_KEYSTORE = "http.tls.keystore";
    public static final String TLS_KEYSTORE_PASSWORD_FILE = "http.tls.keystore.password.file";
    public static final String TLS_CERT = "http.tls.cert";
    public static final String TLS_KEY = "http.tls.key";
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

    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    /** Only for the key store built in memory from PEM files; never written anywhere. */
    private static final char[] IN_MEMORY = "tcpsight".toCharArray();

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
        SSLContext tls = tls(settings);
        String token = settings.get(AUTH_TOKEN_FILE);
        String basic = settings.get(AUTH_BASIC_FILE);
        if (token != null && basic != null) {
            throw new InvalidSettingException(
                    AUTH_BASIC_FILE, basic, "one of " + AUTH_TOKEN_FILE + " and " + AUTH_BASIC_FILE + ", not both");
        }
        byte[] authorization = null;
        String challenge = null;
        if (token != null) {
            String secret = secretLine(AUTH_TOKEN_FILE, token, "a file whose first line is the bearer token");
            authorization = ("Bearer " + secret).getBytes(StandardCharsets.UTF_8);
            challenge = "Bearer realm=\"tcpsight\"";
        } else if (basic != null) {
            String secret = secretLine(AUTH_BASIC_FILE, basic, "a file whose first line is user:password");
            if (secret.indexOf(':') <= 0) {
                throw new InvalidSettingException(
                        AUTH_BASIC_FILE, basic, "a file whose first line is user:password (no colon found)");
            }
            authorization = ("Basic " + Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)))
                    .getBytes(StandardCharsets.UTF_8);
            challenge = "Basic realm=\"tcpsight\", charset=\"UTF-8\"";
        }
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
        String redact = settings.getOrDefault(REDACT, "false");
        if (!redact.equals("true") && !redact.equals("false")) {
            throw new InvalidSettingException(REDACT, redact, "true or false");
        }
        return new EndpointAccess(tls, authorization, challenge, List.copyOf(allow), redact.equals("true"));
    }

    private static SSLContext tls(Map<String, String> settings) {
        String keystore = settings.get(TLS_KEYSTORE);
        String cert = settings.get(TLS_CERT);
        String key = settings.get(TLS_KEY);
        String passwordFile = settings.get(TLS_KEYSTORE_PASSWORD_FILE);
        if (keystore == null && cert == null && key == null) {
            if (passwordFile != null) {
                throw new InvalidSettingException(
                        TLS_KEYSTORE_PASSWORD_FILE, passwordFile, "only with " + TLS_KEYSTORE);
            }
            return null;
        }
        if (keystore != null && (cert != null || key != null)) {
            throw new InvalidSettingException(
                    TLS_KEYSTORE,
                    keystore,
                    "either a PKCS12 " + TLS_KEYSTORE + " or PEM " + TLS_CERT + " and " + TLS_KEY + ", not both");
        }
        try {
            KeyStore store;
            char[] password;
            if (keystore != null) {
                password = passwordFile == null
                        ? new char[0]
                        : secretLine(
                                        TLS_KEYSTORE_PASSWORD_FILE,
                                        passwordFile,
                                        "a file whose first line is the password")
                                .toCharArray();
                store = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(Paths.get(keystore))) {
                    store.load(in, password);
                } catch (IOException | GeneralSecurityException unreadable) {
                    throw new InvalidSettingException(
                            TLS_KEYSTORE,
                            keystore,
                            "a PKCS12 key store readable with the password given (" + unreadable + ")");
                }
            } else {
                if (cert == null || key == null) {
                    String given = cert == null ? TLS_KEY : TLS_CERT;
                    throw new InvalidSettingException(
                            given, cert == null ? key : cert, "together with " + (cert == null ? TLS_CERT : TLS_KEY));
                }
                password = IN_MEMORY;
                store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setKeyEntry("tcpsight", privateKey(key), password, certificates(cert));
            }
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (IOException | GeneralSecurityException failed) {
            throw new InvalidSettingException(
                    keystore != null ? TLS_KEYSTORE : TLS_CERT,
                    keystore != null ? keystore : cert,
                    "a key and certificate the JDK can serve TLS with (" + failed + ")");
        }
    }

    private static Certificate[] certificates(String path) {
        try (InputStream in = Files.newInputStream(Paths.get(path))) {
            Collection<? extends Certificate> chain =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (chain.isEmpty()) {
                throw new InvalidSettingException(TLS_CERT, path, "a PEM file with the certificate chain");
            }
            return chain.toArray(new Certificate[0]);
        } catch (IOException | GeneralSecurityException unreadable) {
            throw new InvalidSettingException(
                    TLS_CERT, path, "a PEM file with the certificate chain (" + unreadable + ")");
        }
    }

    /** An unencrypted PKCS#8 PEM key ("BEGIN PRIVATE KEY"), RSA, EC or EdDSA. */
    private static PrivateKey privateKey(String path) {
        String pem;
        try {
            pem = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.US_ASCII);
        } catch (IOException unreadable) {
            throw new InvalidSettingException(TLS_KEY, path, "a readable PEM private key (" + unreadable + ")");
        }
        Matcher block = PEM.matcher(pem);
        if (!block.find() || !block.group(1).equals("PRIVATE KEY")) {
            throw new InvalidSettingException(
                    TLS_KEY,
                    path,
                    "an unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY); convert one with"
                            + " openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem");
        }
        byte[] der = Base64.getMimeDecoder().decode(block.group(2));
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisOne) {
                // the next algorithm
            }
        }
        throw new InvalidSettingException(TLS_KEY, path, "an RSA, EC or EdDSA private key");
    }

    /** The first line of a secret file; the error names the file, never its content. */
    private static String secretLine(String key, String path, String allowed) {
        try {
            List<String> lines = Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8);
            String first = lines.isEmpty() ? "" : lines.get(0).trim();
            if (first.isEmpty()) {
                throw new InvalidSettingException(key, path, allowed + " (the first line is empty)");
            }
            return first;
        } catch (IOException unreadable) {
            throw new InvalidSettingException(key, path, allowed + " (" + unreadable + ")");
        }
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

    /** An address or a CIDR range, IPv4 or IPv6. */
    static final class AddressRange {
        private final byte[] network;
        private final int prefix;

        private AddressRange(byte[] network, int prefix) {
            this.network = network;
            this.prefix = prefix;
        }

        static AddressRange parse(String key, String text) {
            int slash = text.indexOf('/');
            String address = slash < 0 ? text : text.substring(0, slash);
            // Only literals: a host name here would mean a DNS lookup at every start.
            if (!address.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
                throw new InvalidSettingException(key, text, "IP addresses or CIDR ranges such as 10.0.0.0/8 or ::1");
            }
            byte[] bytes;
            try {
                bytes = InetAddress.getByName(address).getAddress();
            } catch (IOException malformed) {
                throw new InvalidSettingException(key, text, "IP addresses or CIDR ranges such as 10.0.0.0/8 or ::1");
            }
            int prefix = bytes.length * 8;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(text.substring(slash + 1));
                } catch (NumberFormatException notANumber) {
                    prefix = -1;
                }
                if (prefix < 0 || prefix > bytes.length * 8) {
                    throw new InvalidSettingException(
                            key, text, "a prefix length from 0 to " + bytes.length * 8 + " after the '/'");
                }
            }
            return new AddressRange(bytes, prefix);
        }

        boolean contains(InetAddress candidate) {
            byte[] bytes = candidate.getAddress();
            if (bytes.length == 16 && network.length == 4 && isMappedIpv4(bytes)) {
                bytes = Arrays.copyOfRange(bytes, 12, 16);
            }
            if (bytes.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int mask = 0x80 >> (bit % 8);
                if ((bytes[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }

        private static boolean isMappedIpv4(byte[] bytes) {
            for (int i = 0; i < 10; i++) {
                if (bytes[i] != 0) {
                    return false;
                }
            }
            return bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff;
        }
    }
}
