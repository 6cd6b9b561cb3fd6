package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.config.InvalidSettingException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The endpoint's TLS key and certificate, read once at start: a PKCS12 key store (with its
 * password from a file), or a PEM certificate chain and an unencrypted PKCS#8 PEM key. A file that
 * is missing or unreadable is one error naming its key.
 */
final class TlsKeyFiles {
    static final String KEYSTORE = "http.tls.keystore";
    static final String KEYSTORE_PASSWORD_FILE = "http.tls.keystore.password.file";
    static final String CERT = "http.tls.cert";
    static final String KEY = "http.tls.key";

    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    /** Only for the key store built in memory from PEM files; never written anywhere. */
    private static final char[] IN_MEMORY = "tcpsight".toCharArray();

    private TlsKeyFiles() {}

    /**
     * Which TLS keys go together, judged without reading a file: a PKCS12 key store (its password
     * file only with it), or a PEM certificate and key, both.
     */
    static void checkPairs(Map<String, String> settings) {
        String keystore = settings.get(KEYSTORE);
        String cert = settings.get(CERT);
        String key = settings.get(KEY);
        String passwordFile = settings.get(KEYSTORE_PASSWORD_FILE);
        if (keystore == null && cert == null && key == null) {
            if (passwordFile != null) {
                throw new InvalidSettingException(KEYSTORE_PASSWORD_FILE, passwordFile, "only with " + KEYSTORE);
            }
            return;
        }
        if (keystore != null && (cert != null || key != null)) {
            throw new InvalidSettingException(
                    KEYSTORE,
                    keystore,
                    "either a PKCS12 " + KEYSTORE + " or PEM " + CERT + " and " + KEY + ", not both");
        }
        if (keystore == null && (cert == null || key == null)) {
            String given = cert == null ? KEY : CERT;
            throw new InvalidSettingException(
                    given, cert == null ? key : cert, "together with " + (cert == null ? CERT : KEY));
        }
    }

    /** The server's TLS context; null when no TLS key is set (the endpoint speaks plain HTTP). */
    static SSLContext context(Map<String, String> settings) {
        checkPairs(settings);
        String keystore = settings.get(KEYSTORE);
        String cert = settings.get(CERT);
        String key = settings.get(KEY);
        String passwordFile = settings.get(KEYSTORE_PASSWORD_FILE);
        if (keystore == null && cert == null && key == null) {
            return null;
        }
        try {
            KeyStore store;
            char[] password;
            if (keystore != null) {
                password = passwordFile == null
                        ? new char[0]
                        : SecretFiles.firstLine(
                                        KEYSTORE_PASSWORD_FILE, passwordFile, "a file whose first line is the password")
                                .toCharArray();
                store = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(Paths.get(keystore))) {
                    store.load(in, password);
                } catch (IOException | GeneralSecurityException unreadable) {
                    throw new InvalidSettingException(
                            KEYSTORE,
                            keystore,
                            "a PKCS12 key store readable with the password given (" + unreadable + ")");
                }
            } else {
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
                    keystore != null ? KEYSTORE : CERT,
                    keystore != null ? keystore : cert,
                    "a key and certificate the JDK can serve TLS with (" + failed + ")");
        }
    }

    private static Certificate[] certificates(String path) {
        try (InputStream in = Files.newInputStream(Paths.get(path))) {
            Collection<? extends Certificate> chain =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (chain.isEmpty()) {
                throw new InvalidSettingException(CERT, path, "a PEM file with the certificate chain");
            }
            return chain.toArray(new Certificate[0]);
        } catch (IOException | GeneralSecurityException unreadable) {
            throw new InvalidSettingException(CERT, path, "a PEM file with the certificate chain (" + unreadable + ")");
        }
    }

    /** An unencrypted PKCS#8 PEM key ("BEGIN PRIVATE KEY"), RSA, EC or EdDSA. */
    private static PrivateKey privateKey(String path) {
        String pem;
        try {
            pem = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.US_ASCII);
        } catch (IOException unreadable) {
            throw new InvalidSettingException(KEY, path, "a readable PEM private key (" + unreadable + ")");
        }
        Matcher block = PEM.matcher(pem);
        if (!block.find() || !block.group(1).equals("PRIVATE KEY")) {
            throw new InvalidSettingException(
                    KEY,
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
        throw new InvalidSettingException(KEY, path, "an RSA, EC or EdDSA private key");
    }
}
