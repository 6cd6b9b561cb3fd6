package io.tcpsight.architecture;

import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.List;

/**
 * A public type outside internal packages that names an internal one in every place a public
 * signature can, and once where none can see it: what {@code PublicFace} must find (LayeringTest).
 */
public abstract class ExposesInternalTypes implements ConnectionMonitor.RoundListener {
    public ConnectionMonitor field;

    public abstract ConnectionMonitor monitor();

    public abstract List<ConnectionMonitor> monitors();

    public abstract void take(ConnectionMonitor monitor);

    abstract ConnectionMonitor notPublic();
}
