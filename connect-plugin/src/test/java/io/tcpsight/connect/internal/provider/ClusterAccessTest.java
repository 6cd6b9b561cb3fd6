package io.tcpsight.connect.internal.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** The provider's params that say where the worker's cluster is and how a client reaches it. */
class ClusterAccessTest {
    private static final String JAAS =
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"connect\" password=\"s3cr3t-pw\";";

    /** What the Strimzi recipe sets under config.providers.tcpsight.param., plus SASL. */
    private static Map<String, Object> strimziParams() {
        Map<String, Object> params = new HashMap<>();
        params.put("bootstrap.servers", "orders-kafka-bootstrap:9093");
        params.put("security.protocol", "sasl_ssl");
        params.put("ssl.truststore.type", "PEM");
        params.put("ssl.truststore.location", "/opt/kafka/connect-certs/orders-cluster-ca-cert/ca.crt");
        params.put("ssl.keystore.password", "keystore-pw-123");
        params.put("sasl.mechanism", "SCRAM-SHA-512");
        params.put("sasl.jaas.config", JAAS);
        params.put("tcpsight.target.throughput.mbit", "200");
        params.put("tcpsight.cluster.far.bootstrap.servers", "far-1:9093");
        return params;
    }

    @Test
    void theParamsNameTheClusterAndEveryClientSettingGoesToTheAdminClient() {
        ClusterAccess access = ClusterAccess.fromParams(strimziParams());
        assertTrue(access.known());
        assertEquals("orders-kafka-bootstrap:9093", access.bootstrapServers());
        assertTrue(access.listsBrokers(), "security.protocol given: the cluster's brokers are listed");
        Map<String, Object> admin = access.adminConfig("id", Duration.ofSeconds(3));
        assertEquals("orders-kafka-bootstrap:9093", admin.get("bootstrap.servers"));
        assertEquals("SASL_SSL", admin.get("security.protocol"), "any case, as Kafka takes it");
        assertEquals("PEM", admin.get("ssl.truststore.type"));
        assertEquals("/opt/kafka/connect-certs/orders-cluster-ca-cert/ca.crt", admin.get("ssl.truststore.location"));
        assertEquals(JAAS, admin.get("sasl.jaas.config"));
        assertEquals("SCRAM-SHA-512", admin.get("sasl.mechanism"));
        assertEquals("3000", admin.get("default.api.timeout.ms"));
        assertFalse(admin.containsKey("tcpsight.target.throughput.mbit"), "tcpsight's own keys stay tcpsight's");
        assertFalse(admin.containsKey("tcpsight.cluster.far.bootstrap.servers"));
    }

    @Test
    void theDescriptionNamesServersAndProtocolAndNeverASecret() {
        ClusterAccess access = ClusterAccess.fromParams(strimziParams());
        String line = access.describe();
        assertTrue(line.contains("orders-kafka-bootstrap:9093"), line);
        assertTrue(line.contains("security.protocol SASL_SSL"), line);
        assertTrue(line.contains("sasl.mechanism SCRAM-SHA-512"), line);
        assertTrue(line.contains("config.providers.tcpsight.param.bootstrap.servers"), line);
        assertFalse(
                line.contains("s3cr3t-pw") || line.contains("keystore-pw-123") || line.contains("LoginModule"), line);
        assertEquals(line, access.toString());
        assertEquals(
                "failed: [hidden] and [hidden]",
                access.scrub("failed: keystore-pw-123 and " + JAAS),
                "a client's message that quoted a secret param loses it");
    }

    @Test
    void theEarlierSpellingStillNamesTheCluster() {
        ClusterAccess earlier = ClusterAccess.fromParams(Map.of("tcpsight.bootstrap.servers", "b1:9092,b2:9092"));
        assertEquals("b1:9092,b2:9092", earlier.bootstrapServers());
        assertFalse(earlier.listsBrokers(), "no client settings: handshakes to the bootstrap servers only");
        assertTrue(earlier.describe().contains("config.providers.tcpsight.param.tcpsight.bootstrap.servers"));
        assertEquals(
                "b1:9092",
                ClusterAccess.fromParams(
                                Map.of("bootstrap.servers", "b1:9092", "tcpsight.bootstrap.servers", "b1:9092"))
                        .bootstrapServers(),
                "both spellings, one cluster");
        ConfigException both = assertThrows(
                ConfigException.class,
                () -> ClusterAccess.fromParams(
                        Map.of("bootstrap.servers", "b1:9092", "tcpsight.bootstrap.servers", "b2:9092")));
        assertTrue(both.getMessage().contains("b1:9092") && both.getMessage().contains("b2:9092"), both.getMessage());
    }

    @Test
    void noBootstrapParamIsNoClusterNotAnError() {
        ClusterAccess none = ClusterAccess.fromParams(Map.of("tcpsight.target.throughput.mbit", "200"));
        assertFalse(none.known());
        assertEquals("no cluster", none.describe());
    }

    @Test
    void anUnknownSecurityProtocolIsAClearError() {
        Map<String, Object> params = strimziParams();
        params.put("security.protocol", "TLS");
        ConfigException error = assertThrows(ConfigException.class, () -> ClusterAccess.fromParams(params));
        assertEquals(
                "Invalid value TLS for configuration security.protocol: expected one of PLAINTEXT, SSL, SASL_PLAINTEXT,"
                        + " SASL_SSL",
                error.getMessage());
    }

    @Test
    void aMalformedBootstrapListIsAClearError() {
        ConfigException error = assertThrows(
                ConfigException.class,
                () -> ClusterAccess.fromParams(Map.of("bootstrap.servers", "b1:9092,orders-kafka-bootstrap")));
        assertEquals(
                "Invalid value b1:9092,orders-kafka-bootstrap for configuration bootstrap.servers: expected"
                        + " host:port[,host:port...]",
                error.getMessage());
    }

    /** Without security.protocol the client would speak PLAINTEXT to a TLS listener and ignore the truststore. */
    @Test
    void tlsSettingsWithoutAProtocolAreAClearError() {
        Map<String, Object> params = strimziParams();
        params.remove("security.protocol");
        ConfigException error = assertThrows(ConfigException.class, () -> ClusterAccess.fromParams(params));
        assertTrue(error.getMessage().contains("is set but security.protocol is not"), error.getMessage());
        assertTrue(
                error.getMessage().contains("config.providers.tcpsight.param.security.protocol"), error.getMessage());
        assertFalse(
                error.getMessage().contains("keystore-pw-123")
                        || error.getMessage().contains("s3cr3t"),
                "names the key, never a value: " + error.getMessage());
    }

    /**
     * Kafka configures a first, short-lived provider with the params as written while it resolves
     * the worker config; the one that serves connectors gets them resolved.
     */
    @Test
    void aParamStillAPlaceholderIsNamed() {
        Map<String, Object> params = strimziParams();
        params.put("ssl.keystore.password", "${strimzienv:CERTS_STORE_PASSWORD}");
        assertEquals(
                Optional.of("ssl.keystore.password"),
                ClusterAccess.fromParams(params).unresolvedKey());
        assertEquals(Optional.empty(), ClusterAccess.fromParams(strimziParams()).unresolvedKey());
        params.put("bootstrap.servers", "${file:/opt/kafka/cluster.properties:bootstrap}");
        assertEquals(
                Optional.of("bootstrap.servers"),
                ClusterAccess.fromParams(params).unresolvedKey(),
                "a placeholder is not judged as a host list");
    }
}
