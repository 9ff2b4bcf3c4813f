package org.cyverse.mesa.egress.allowlist;

import java.util.Arrays;

/**
 * An IPv4 or IPv6 network, e.g. {@code 10.0.0.0/8} or {@code fc00::/7}. A bare address is a
 * /32 or /128. The address part takes the spellings {@link Destination#parse} takes; a network
 * with host bits set ({@code 10.0.0.1/8}) is refused rather than silently widened or narrowed,
 * since either guess could open or close more than the operator meant.
 */
public final class Cidr {

    private final byte[] network;
    private final int prefix;

    private Cidr(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
    }

    /** @throws IllegalArgumentException with a message for a person */
    public static Cidr parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty CIDR");
        }
        int slash = text.indexOf('/');
        String addressText = slash < 0 ? text : text.substring(0, slash);
        byte[] address = addressOf(addressText, text);
        int max = address.length * 8;
        int prefix = max;
        if (slash >= 0) {
            prefix = prefixOf(text.substring(slash + 1), max, text);
        }
        byte[] network = mask(address, prefix);
        if (!Arrays.equals(network, address)) {
            String canonical = new Cidr(network, prefix).toString();
            throw new IllegalArgumentException("CIDR '" + text + "' has host bits set beyond /" + prefix
                    + "; did you mean " + canonical + "?");
        }
        return new Cidr(network, prefix);
    }

    /** Whether {@code address} (4 or 16 bytes) lies in this network; false across families. */
    public boolean contains(byte[] address) {
        if (address == null || address.length != network.length) {
            return false;
        }
        int whole = prefix / 8;
        for (int i = 0; i < whole; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int bits = 0xff << (8 - rest) & 0xff;
        return (address[whole] & bits) == (network[whole] & 0xff);
    }

    /** Canonical text, network address and prefix length. */
    @Override
    public String toString() {
        String address = network.length == 4 ? IpText.formatIpv4(network, 0) : IpText.formatIpv6(network);
        return address + "/" + prefix;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr && ((Cidr) o).prefix == prefix && Arrays.equals(((Cidr) o).network, network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefix;
    }

    int prefixLength() {
        return prefix;
    }

    /** The network address, 4 or 16 bytes; not a copy, callers must not change it. */
    byte[] networkBytes() {
        return network;
    }

    /** {@code address} with every bit past {@code prefix} cleared (a fresh array). */
    static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - 8 * i));
            out[i] = (byte) (out[i] & (0xff << (8 - keep)));
        }
        return out;
    }

    private static byte[] addressOf(String addressText, String whole) {
        try {
            Destination d = Destination.parse(addressText, 1);
            if (d.kind() == HostKind.NAME) {
                throw new IllegalArgumentException("'" + whole + "' is not a CIDR: '" + addressText + "' is not an IP address");
            }
            return d.addressBytes();
        } catch (InvalidDestinationException e) {
            throw new IllegalArgumentException("'" + whole + "' is not a CIDR: " + e.getMessage(), e);
        }
    }

    private static int prefixOf(String text, int max, String whole) {
        if (text.isEmpty() || text.length() > 3 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + whole + "': prefix length must be a number 0.." + max);
        }
        int prefix = Integer.parseInt(text);
        if (prefix > max) {
            throw new IllegalArgumentException("'" + whole + "': prefix length " + prefix + " is more than " + max);
        }
        return prefix;
    }
}
