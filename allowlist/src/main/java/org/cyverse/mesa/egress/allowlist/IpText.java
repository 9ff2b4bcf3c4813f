package org.cyverse.mesa.egress.allowlist;

/**
 * Text forms of IP addresses, parsed without DNS: the IPv4 spellings {@code inet_aton(3)} accepts
 * (a client library hands them to the resolver as addresses, so the proxy must read them the same
 * way or {@code 0x7f.1} slips past a name-based rule) and IPv6 per RFC 4291 section 2.2, printed
 * per RFC 5952.
 */
final class IpText {

    private static final long IPV4_MAX = 0xFFFF_FFFFL;

    private IpText() {}

    /**
     * Reads any {@code inet_aton} spelling: one to four parts, each decimal, octal (leading
     * {@code 0}) or hex ({@code 0x}); the last part fills the bytes left ({@code 127.1} is
     * {@code 127.0.0.1}).
     *
     * @return the address as an unsigned 32-bit value, or -1 when the text is not such a spelling
     *     or a part is out of range
     */
    static long parseIpv4Loose(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length > 4) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < parts.length; i++) {
            long part = parseNumber(parts[i]);
            boolean last = i == parts.length - 1;
            long max = last ? IPV4_MAX >>> (8 * i) : 255;
            if (part < 0 || part > max) {
                return -1;
            }
            value = last ? value | part : value | (part << (8 * (3 - i)));
        }
        return value;
    }

    /** One {@code inet_aton} part; -1 when malformed or larger than 32 bits. */
    private static long parseNumber(String part) {
        int radix = 10;
        int start = 0;
        if (part.startsWith("0x") || part.startsWith("0X")) {
            radix = 16;
            start = 2;
        } else if (part.length() > 1 && part.charAt(0) == '0') {
            radix = 8;
            start = 1;
        }
        if (start >= part.length()) {
            // "" and a bare "0x": inet_aton implementations disagree, so neither is an address.
            return -1;
        }
        long value = 0;
        for (int i = start; i < part.length(); i++) {
            int digit = digit(part.charAt(i), radix);
            if (digit < 0) {
                return -1;
            }
            value = value * radix + digit;
            if (value > IPV4_MAX) {
                return -1;
            }
        }
        return value;
    }

    /** ASCII digits only: Character.digit would also take fullwidth and other script digits. */
    static int digit(char c, int radix) {
        int d;
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            d = c - 'A' + 10;
        } else {
            return -1;
        }
        return d < radix ? d : -1;
    }

    /** Strict dotted quad, decimal, no leading zeros; null otherwise. */
    static byte[] parseIpv4Strict(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')) {
                return null;
            }
            int v = 0;
            for (int j = 0; j < p.length(); j++) {
                char c = p.charAt(j);
                if (c < '0' || c > '9') {
                    return null;
                }
                v = v * 10 + (c - '0');
            }
            if (v > 255) {
                return null;
            }
            bytes[i] = (byte) v;
        }
        return bytes;
    }

    static byte[] ipv4Bytes(long value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    static String formatIpv4(byte[] b, int offset) {
        return (b[offset] & 0xff) + "." + (b[offset + 1] & 0xff) + "." + (b[offset + 2] & 0xff) + "." + (b[offset + 3] & 0xff);
    }

    /**
     * RFC 4291 section 2.2 text: full, {@code ::}-compressed, with a trailing dotted quad; any
     * case. Zone ids ({@code %eth0}) are not accepted: they name a local interface.
     *
     * @return 16 bytes, or null when malformed
     */
    static byte[] parseIpv6(String text) {
        if (text.isEmpty() || text.length() > 45) {
            return null;
        }
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        int[] head = gap >= 0 ? groups(text.substring(0, gap), false) : groups(text, true);
        int[] tail = gap >= 0 ? groups(text.substring(gap + 2), true) : new int[0];
        if (head == null || tail == null) {
            return null;
        }
        int count = head.length + tail.length;
        if (gap < 0 ? count != 8 : count > 7) {
            return null;
        }
        byte[] bytes = new byte[16];
        for (int i = 0; i < head.length; i++) {
            putGroup(bytes, i, head[i]);
        }
        for (int i = 0; i < tail.length; i++) {
            putGroup(bytes, 8 - tail.length + i, tail[i]);
        }
        return bytes;
    }

    private static void putGroup(byte[] bytes, int index, int group) {
        bytes[2 * index] = (byte) (group >>> 8);
        bytes[2 * index + 1] = (byte) group;
    }

    /** Colon-separated groups; when {@code mayEndInIpv4}, a final dotted quad counts as two. */
    private static int[] groups(String text, boolean mayEndInIpv4) {
        if (text.isEmpty()) {
            return new int[0];
        }
        String[] parts = text.split(":", -1);
        byte[] ipv4 = null;
        String lastPart = parts[parts.length - 1];
        if (mayEndInIpv4 && lastPart.indexOf('.') >= 0) {
            ipv4 = parseIpv4Strict(lastPart);
            if (ipv4 == null) {
                return null;
            }
        }
        int hexCount = ipv4 == null ? parts.length : parts.length - 1;
        int[] out = new int[ipv4 == null ? hexCount : hexCount + 2];
        for (int i = 0; i < hexCount; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 4) {
                return null;
            }
            int v = 0;
            for (int j = 0; j < p.length(); j++) {
                int d = digit(p.charAt(j), 16);
                if (d < 0) {
                    return null;
                }
                v = v * 16 + d;
            }
            out[i] = v;
        }
        if (ipv4 != null) {
            out[hexCount] = ((ipv4[0] & 0xff) << 8) | (ipv4[1] & 0xff);
            out[hexCount + 1] = ((ipv4[2] & 0xff) << 8) | (ipv4[3] & 0xff);
        }
        return out;
    }

    /**
     * RFC 5952 section 4: lowercase, no leading zeros, the longest run of two or more zero groups
     * (the first on a tie) as {@code ::}. Section 5: an IPv4-mapped address ({@code ::ffff:0:0/96})
     * ends in its dotted quad, {@code ::ffff:127.0.0.1}, so a person reading an audit record sees
     * which IPv4 host was asked for.
     */
    static String formatIpv6(byte[] b) {
        if (isIpv4Mapped(b)) {
            return "::ffff:" + formatIpv4(b, 12);
        }
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /**
     * The IPv4 host an IPv6 literal reaches as it stands: an IPv4-mapped address
     * ({@code ::ffff:a.b.c.d}, which a dual-stack socket dials over IPv4) or the NAT64
     * well-known prefix {@code 64:ff9b::/96} (RFC 6052, translated to the same host). Null for
     * every other address, including 6to4 and Teredo, which reach an IPv6 host behind a relay.
     */
    static byte[] reachedIpv4(byte[] b) {
        if (b == null || b.length != 16) {
            return null;
        }
        boolean nat64 = b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
        for (int i = 4; nat64 && i < 12; i++) {
            nat64 = b[i] == 0;
        }
        return nat64 || isIpv4Mapped(b) ? new byte[] {b[12], b[13], b[14], b[15]} : null;
    }

    static boolean isIpv4Mapped(byte[] b) {
        if (b.length != 16) {
            return false;
        }
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }
}
