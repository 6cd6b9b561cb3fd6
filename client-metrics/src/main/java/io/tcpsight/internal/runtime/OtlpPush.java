package io.tcpsight.internal.runtime;

import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.export.OtlpExport;
import io.tcpsight.internal.export.OtlpSettings;
import io.tcpsight.internal.monitor.ConnectionMonitor;

/**
 * The opt-in OTLP push, apart from the runtime's assembly on purpose: this class names
 * Micrometer's types (the binder is a {@code MeterBinder}), and the JVM's verifier loads the types a
 * class's methods pass around when it links the class (here, to learn that MeterBinder is an
 * interface). Kept here, Micrometer is linked only when OTLP is asked for and the runtime found it
 * (by name, from a class that names none of its types), so a client with kafka-clients alone runs
 * the reporter.
 */
final class OtlpPush {
    private OtlpPush() {}

    /** Starts pushing the monitor's meters; closing the result pushes the last step and stops. */
    static AutoCloseable start(ConnectionMonitor monitor, OtlpSettings settings) {
        return OtlpExport.start(new ConnectionMeters(monitor), settings);
    }
}
