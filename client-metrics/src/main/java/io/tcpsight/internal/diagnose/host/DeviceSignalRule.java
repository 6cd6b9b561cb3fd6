package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.HostSignals;
import java.util.List;
import java.util.Optional;

/**
 * One rule about a network device of this host over the last interval: its rises ({@link
 * HostSignals.Device}) beside the connections that sent in the same interval.
 */
interface DeviceSignalRule {
    /**
     * @param sending the named connections that sent in the interval (retransmitted, or busy)
     * @param host the identity a finding carries when no Kafka connection was hurt (this JVM's role)
     */
    Optional<Finding> judge(
            HostSignals signals, HostSignals.Device device, List<SendingConnection> sending, ConnectionIdentity host);
}
