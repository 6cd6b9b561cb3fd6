package io.tcpsight.lab;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;

/**
 * One connection as /connections serves it, typed for assertions. Absent numbers are null, and so
 * is brokerSettings on a connection no setting of the broker's own applies to.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ConnectionView(
        FindingView.Peer connection,
        String ownerKnownBy,
        TcpInfo tcpInfo,
        Interval interval,
        Socket socket,
        Long handshakeMs,
        JsonNode brokerSettings) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The kernel's tcp_info as the endpoint reports it. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record TcpInfo(
            String state,
            double rttMs,
            Double minRttMs,
            String options,
            boolean windowScaling,
            int sndWscale,
            int rcvWscale,
            long sndCwnd,
            Long sndWnd,
            Long rcvWnd,
            Long deliveryRateBytesPerSecond,
            long totalRetrans,
            Long bytesAcked,
            Long bytesReceived) {}

    /** Ratios and rates over the last sampling interval. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Interval(
            double seconds,
            double busy,
            double rwndLimited,
            double sndbufLimited,
            double retransmitRatio,
            double sendRateBytesPerSecond,
            double receiveRateBytesPerSecond) {}

    /** Socket options read back from the kernel. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Socket(
            @JsonProperty("SO_RCVBUF") int receiveBuffer,
            @JsonProperty("SO_SNDBUF") int sendBuffer,
            @JsonProperty("TCP_WINDOW_CLAMP") int windowClamp,
            @JsonProperty("TCP_CONGESTION") String congestionControl) {}

    public static List<ConnectionView> list(String json) throws IOException {
        return JSON.readValue(json, new TypeReference<List<ConnectionView>>() {});
    }

    public String clientId() {
        return connection.clientId();
    }

    public String role() {
        return connection.role();
    }
}
