package io.tcpsight.connect.internal.observation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.NotFoundException;
import org.apache.kafka.connect.health.ConnectClusterDetails;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.apache.kafka.connect.health.ConnectorHealth;

/**
 * Connector configs as a herder holds them (the REST extension's {@link ConnectClusterState}); one
 * name may be listed after its connector was deleted. Only the configs are read by the tests' subjects.
 */
final class HerderConfigs implements ConnectClusterState {
    final Map<String, Map<String, String>> configs = new LinkedHashMap<>();
    String listedButGone;

    HerderConfigs() {}

    HerderConfigs(Map<String, Map<String, String>> configs) {
        this.configs.putAll(configs);
    }

    @Override
    public Collection<String> connectors() {
        List<String> names = new ArrayList<>(configs.keySet());
        if (listedButGone != null) {
            names.add(listedButGone);
        }
        return names;
    }

    @Override
    public Map<String, String> connectorConfig(String connName) {
        Map<String, String> config = configs.get(connName);
        if (config == null) {
            throw new NotFoundException("Connector " + connName + " not found");
        }
        return config;
    }

    @Override
    public ConnectorHealth connectorHealth(String connName) {
        throw new UnsupportedOperationException("not read by these tests");
    }

    @Override
    public ConnectClusterDetails clusterDetails() {
        throw new UnsupportedOperationException("not read by these tests");
    }
}
