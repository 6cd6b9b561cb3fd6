package io.tcpsight.internal.export;

import io.tcpsight.internal.diagnose.finding.FindingJson;
import io.tcpsight.internal.diagnose.finding.JsonText;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.monitor.JudgedConnection;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.SocketBufferState;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The JSON of /connections: each connection of a round with its identity, what the round's sample
 * saw and the window ceiling the round judged it by; the handshake and the client's own push as the
 * connection holds them now.
 */
public final class ConnectionJson {
    public static final int DEFAULT_TOP = 20;
    public static final int MAX_TOP = 1000;
    /** The answer to a bad top=N; it never repeats what was sent, which could be anything. */
    public static final String TOP_NOT_ALLOWED = "top must be a whole number from 1 to " + MAX_TOP + "\n";

    private ConnectionJson() {}

    /** The top=N parameter of a /connections endpoint: default 20 when absent, -1 when not a whole number from 1 to 1000. */
    public static int top(String value) {
        if (value == null) {
            return DEFAULT_TOP;
        }
        try {
            int top = Integer.parseInt(value.trim());
            return top >= 1 && top <= MAX_TOP ? top : -1;
        } catch (NumberFormatException notANumber) {
            return -1;
        }
    }

    public static String array(List<JudgedConnection> connections) {
        return array(connections, false);
    }

    /** The same; without principals and addresses when {@code redacted}. */
    public static String array(List<JudgedConnection> connections, boolean redacted) {
        return "[" + String.join(",", objects(connections, redacted)) + "]";
    }

    /** One JSON object per sampled connection, in order; the elements of {@link #array}. */
    public static List<String> objects(List<JudgedConnection> connections) {
        return objects(connections, false);
    }

    /** The same; without principals and addresses when {@code redacted} (see {@link FindingJson#array(List, boolean)}). */
    public static List<String> objects(List<JudgedConnection> connections, boolean redacted) {
        return objects(connections, redacted, "settings", identity -> "");
    }

    /**
     * The same, each object with the settings of this end that apply to its connection as the field
     * {@code settingsField}: {@code settings} gives a JSON object's text for a connection, or "" to
     * leave the field out (the broker agent's own socket settings, for a connection to its listener).
     */
    public static List<String> objects(
            List<JudgedConnection> connections,
            boolean redacted,
            String settingsField,
            Function<ConnectionIdentity, String> settings) {
        List<String> objects = new ArrayList<>(connections.size());
        for (JudgedConnection judged : connections) {
            TrackedConnection connection = judged.connection();
            ConnectionSample sample = judged.sample();
            StringBuilder json = new StringBuilder("{\"connection\":");
            FindingJson.connection(json, connection.identity(), redacted);
            json.append(",\"ownerKnownBy\":\"")
                    .append(connection.identity().ownerKnownBy().label())
                    .append('"');
            json.append(",\"tcpInfo\":{");
            field(json, "state", sample.state().name(), true);
            field(json, "rttMs", sample.rttMicros() / 1000.0, false);
            sample.minRttMicros().ifPresent(micros -> field(json, "minRttMs", micros / 1000.0, false));
            field(json, "options", sample.options().toString(), false);
            field(json, "windowScaling", sample.options().windowScaling(), false);
            field(json, "sndWscale", sample.sndWindowScale(), false);
            field(json, "rcvWscale", sample.rcvWindowScale(), false);
            field(json, "sndCwnd", sample.sndCwnd(), false);
            optional(json, "sndWnd", sample.sndWindowBytes());
            optional(json, "rcvWnd", sample.rcvWindowBytes());
            optional(json, "deliveryRateBytesPerSecond", sample.deliveryRateBytesPerSecond());
            field(json, "totalRetrans", sample.totalRetrans(), false);
            optional(json, "bytesAcked", sample.bytesAcked());
            optional(json, "bytesReceived", sample.bytesReceived());
            json.append('}');
            if (sample.interval().isPresent()) {
                IntervalStats interval = sample.interval().get();
                json.append(",\"interval\":{");
                field(json, "seconds", interval.seconds(), true);
                field(json, "busy", interval.busyRatio(), false);
                field(json, "rwndLimited", interval.rwndLimitedRatio(), false);
                field(json, "sndbufLimited", interval.sndbufLimitedRatio(), false);
                field(json, "retransmitRatio", interval.retransmitRatio(), false);
                field(json, "sendRateBytesPerSecond", interval.sendRateBytesPerSecond(), false);
                field(json, "receiveRateBytesPerSecond", interval.receiveRateBytesPerSecond(), false);
                json.append('}');
            }
            if (sample.buffers().isPresent()) {
                SocketBufferState buffers = sample.buffers().get();
                json.append(",\"socket\":{");
                field(json, "SO_RCVBUF", buffers.receiveBufferBytes(), true);
                field(json, "SO_SNDBUF", buffers.sendBufferBytes(), false);
                field(json, "TCP_WINDOW_CLAMP", buffers.windowClampBytes(), false);
                field(json, "TCP_CONGESTION", buffers.congestionControl(), false);
                json.append('}');
            }
            judged.windowCeilingBytes().ifPresent(ceiling -> json.append(",\"windowCeilingBytes\":")
                    .append(ceiling));
            if (connection.handshakeMillis().isPresent()) {
                json.append(",\"handshakeMs\":")
                        .append(connection.handshakeMillis().getAsLong());
            }
            connection.pushed().ifPresent(pushed -> {
                json.append(",\"clientTelemetry\":{");
                field(json, "clientInstanceId", pushed.clientInstanceId(), true);
                pushed.figures().forEach((figure, value) -> field(json, figure.field(), value, false));
                json.append('}');
            });
            String applying = settings.apply(connection.identity());
            if (!applying.isEmpty()) {
                json.append(',');
                JsonText.string(json, settingsField);
                json.append(':').append(applying);
            }
            objects.add(json.append('}').toString());
        }
        return objects;
    }

    private static void optional(StringBuilder json, String name, OptionalLong value) {
        if (value.isPresent()) {
            field(json, name, value.getAsLong(), false);
        }
    }

    private static void field(StringBuilder json, String name, Object value, boolean first) {
        if (!first) {
            json.append(',');
        }
        JsonText.string(json, name);
        json.append(':');
        JsonText.value(json, value);
    }
}
