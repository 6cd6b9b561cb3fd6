package io.tcpsight.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Key material for a mutual-TLS lab listener, made with the JDK's keytool and KeyStore: one self-signed key
 * per party (the broker and each client, named by its certificate's CN), a truststore for the
 * broker holding every party's certificate, and one for the clients holding the broker's.
 * Self-signed is enough: the lab checks who the broker says a client is, not a PKI.
 */
public final class LabTls {
    static final String PASSWORD = "lab-secret";

    private final Path directory;

    private LabTls(Path directory) {
        this.directory = directory;
    }

    /** Keys for "broker" and each client name, in a fresh directory under the lab's work folder. */
    public static LabTls create(String name, String... clients) throws IOException, InterruptedException {
        return forBroker(null, name, clients);
    }

    /**
     * The same, for a broker at {@code brokerAddress} as well (the kernel lab's server address), which
     * its certificate then names, so clients verify it as they would in production.
     */
    public static LabTls forBroker(String brokerAddress, String name, String... clients)
            throws IOException, InterruptedException {
        Path directory = Files.createDirectories(
                LabPaths.work().resolve(name + "-" + ProcessHandle.current().pid()));
        LabTls tls = new LabTls(directory);
        List<String> parties = new ArrayList<>(List.of("broker"));
        parties.addAll(Arrays.asList(clients));
        // keytool makes each key, all at once (a JVM each, about a second); the certificates and the truststores are
        // written here with the JDK's KeyStore, as keytool's -exportcert -rfc and -importcert write them
        List<LabProcess> keys = new ArrayList<>();
        try {
            for (String party : parties) {
                Files.deleteIfExists(tls.keystore(party));
                keys.add(tls.keytool(
                        name + "-key-" + party,
                        "-genkeypair",
                        "-alias",
                        party,
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-validity",
                        "2",
                        "-dname",
                        "CN=" + party,
                        "-ext",
                        "SAN=ip:127.0.0.1,dns:localhost" + (brokerAddress == null ? "" : ",ip:" + brokerAddress),
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        tls.keystore(party).toString(),
                        "-storepass",
                        PASSWORD,
                        "-keypass",
                        PASSWORD));
            }
            for (LabProcess key : keys) {
                if (key.awaitExit(Duration.ofSeconds(60)) != 0) {
                    throw new IOException("keytool -genkeypair failed:\n" + key.output());
                }
            }
        } finally {
            keys.forEach(LabProcess::close);
        }
        Map<String, Certificate> certificates = new LinkedHashMap<>();
        for (String party : parties) {
            Certificate certificate = tls.certificate(party);
            certificates.put(party, certificate);
            tls.writePem(certificate, directory.resolve(party + ".crt"));
        }
        tls.writeTruststore("broker", certificates);
        tls.writeTruststore("clients", Map.of("broker", certificates.get("broker")));
        return tls;
    }

    /** The broker's SSL settings for its client listener: its key, every party trusted, client certificates required. */
    Map<String, String> brokerListener() {
        Map<String, String> settings = stores("broker", "broker");
        settings.put("ssl.client.auth", "required");
        return settings;
    }

    /**
     * The broker's SSL settings for a listener that proves only itself, as a Strimzi cluster's
     * internal TLS listener without client authentication does: its key, no client certificate.
     */
    Map<String, String> brokerListenerServerOnly() {
        Map<String, String> settings = stores("broker", "broker");
        settings.put("ssl.client.auth", "none");
        return settings;
    }

    /**
     * The broker's certificate, PEM: what a client of a server-only listener trusts, as Strimzi
     * mounts a cluster CA's ca.crt for spec.tls.trustedCertificates (the broker's certificate is
     * self-signed here, its own CA).
     */
    public Path brokerCertificate() {
        return directory.resolve("broker.crt");
    }

    /** A client's SSL settings for a server-only listener: TLS, the broker's PEM certificate trusted, no key of its own. */
    public Map<String, String> trustingBroker() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("security.protocol", "SSL");
        settings.put("ssl.truststore.type", "PEM");
        settings.put("ssl.truststore.location", brokerCertificate().toString());
        return settings;
    }

    /** A client's SSL settings: its own key, the broker trusted (the broker's certificate names 127.0.0.1). */
    public Map<String, String> client(String party) {
        Map<String, String> settings = stores(party, "clients");
        settings.put("security.protocol", "SSL");
        return settings;
    }

    /** The keystore of this party and the truststore of this holder, as Kafka's ssl.* settings. */
    private Map<String, String> stores(String party, String trustHolder) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.location", keystore(party).toString());
        settings.put("ssl.keystore.password", PASSWORD);
        settings.put("ssl.key.password", PASSWORD);
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.location", truststore(trustHolder).toString());
        settings.put("ssl.truststore.password", PASSWORD);
        return settings;
    }

    private Path keystore(String party) {
        return directory.resolve(party + ".p12");
    }

    private Path truststore(String holder) {
        return directory.resolve(holder + "-trust.p12");
    }

    /** The party's own certificate, from the keystore keytool made for it. */
    private Certificate certificate(String party) throws IOException {
        try (InputStream in = Files.newInputStream(keystore(party))) {
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(in, PASSWORD.toCharArray());
            Certificate certificate = keyStore.getCertificate(party);
            if (certificate == null) {
                throw new IOException("no certificate under the alias " + party + " in " + keystore(party));
            }
            return certificate;
        } catch (GeneralSecurityException unreadable) {
            throw new IOException("cannot read " + keystore(party), unreadable);
        }
    }

    /** PEM, as {@code keytool -exportcert -rfc} writes it. */
    private void writePem(Certificate certificate, Path file) throws IOException {
        try {
            String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(certificate.getEncoded());
            Files.writeString(file, "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n");
        } catch (CertificateEncodingException unencodable) {
            throw new IOException("cannot encode the certificate for " + file, unencodable);
        }
    }

    /** A PKCS12 truststore of this holder with these parties' certificates, as {@code keytool -importcert} makes it. */
    private void writeTruststore(String holder, Map<String, Certificate> trusted) throws IOException {
        try (OutputStream out = Files.newOutputStream(truststore(holder))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (Map.Entry<String, Certificate> party : trusted.entrySet()) {
                store.setCertificateEntry(party.getKey(), party.getValue());
            }
            store.store(out, PASSWORD.toCharArray());
        } catch (GeneralSecurityException unwritable) {
            throw new IOException("cannot write the truststore of " + holder, unwritable);
        }
    }

    private LabProcess keytool(String processName, String... arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(Arrays.asList(arguments));
        return LabProcess.start(processName, command);
    }
}
