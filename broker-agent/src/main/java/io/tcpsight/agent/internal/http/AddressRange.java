package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.config.InvalidSettingException;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Arrays;

/** An address or a CIDR range, IPv4 or IPv6. */
final class AddressRange {
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
