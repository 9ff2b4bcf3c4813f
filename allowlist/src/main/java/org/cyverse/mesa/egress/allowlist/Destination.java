package org.cyverse.mesa.egress.allowlist;

import java.net.IDN;
import java.util.Locale;
import java.util.Objects;

/**
 * A canonical destination: the host every decision, audit record and metric uses, and a port.
 *
 * <p>Built through {@link #parse}, so two spellings of one place are always equal. The canonical
 * constructor accepts only text that is already canonical for its kind (it throws
 * {@link IllegalArgumentException} otherwise), so a hand-built destination cannot carry a
 * spelling that a rule lookup would miss.
 *
 * @param host canonical host text: a lowercase punycode name without trailing dot, a dotted-quad
 *     IPv4 address, or an RFC 5952 IPv6 address without brackets (an IPv4-mapped address in the
 *     RFC 5952 section 5 form {@code ::ffff:127.0.0.1})
 * @param kind what {@code host} is
 * @param port 1..65535
 */
public record Destination(String host, HostKind kind, int port) {

    public Destination {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(kind, "kind");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 1..65535");
        }
        if (!isCanonical(host, kind)) {
            throw new IllegalArgumentException("'" + host + "' is not a canonical " + kind + "; use Destination.parse");
        }
    }

    /**
     * Canonicalizes a client-supplied host (SPEC.md decision step 2): lowercase, strip one
     * trailing dot, IDN to punycode, every IPv4 spelling ({@code 127.1}, {@code 0x7f.0.0.1},
     * {@code 2130706433}, octal {@code 0177.0.0.1}) and IPv6 form (brackets, compressed,
     * embedded IPv4) to one address.
     *
     * <p>A name whose last label is a number ({@code 1.2.3.4.5}, {@code foo.0x7f}) but that is
     * no valid IPv4 spelling is refused as ambiguous: resolvers and URL parsers disagree on it.
     *
     * @throws InvalidDestinationException when the host is empty, malformed, or ambiguous
     */
    public static Destination parse(String rawHost, int port) throws InvalidDestinationException {
        if (port < 1 || port > 65535) {
            throw new InvalidDestinationException("port " + port + " is outside 1..65535");
        }
        if (rawHost == null || rawHost.isEmpty()) {
            throw new InvalidDestinationException("empty host");
        }
        if (rawHost.startsWith("[") || rawHost.endsWith("]")) {
            if (rawHost.length() < 3 || !rawHost.startsWith("[") || !rawHost.endsWith("]")) {
                throw new InvalidDestinationException("unbalanced brackets in host '" + rawHost + "'");
            }
            return ipv6(rawHost.substring(1, rawHost.length() - 1), rawHost, port);
        }
        if (rawHost.indexOf(':') >= 0) {
            // A caller that already split "host:port" may hand over an IPv6 address unbracketed.
            return ipv6(rawHost, rawHost, port);
        }
        if (rawHost.indexOf('%') >= 0) {
            // Percent-encoded hosts decode differently in different clients: refuse, never guess.
            throw new InvalidDestinationException("'%' in host '" + rawHost + "'");
        }
        // IDN first: it maps ideographic full stops and fullwidth digits to ASCII, so the IP
        // literal test below sees "169。254。169。254" as the address it is.
        String ascii = toAscii(rawHost).toLowerCase(Locale.ROOT);
        if (ascii.endsWith("..")) {
            throw new InvalidDestinationException("more than one trailing dot in host '" + rawHost + "'");
        }
        if (ascii.endsWith(".")) {
            ascii = ascii.substring(0, ascii.length() - 1);
        }
        if (ascii.isEmpty()) {
            throw new InvalidDestinationException("empty host");
        }
        if (endsInNumber(ascii)) {
            long value = IpText.parseIpv4Loose(ascii);
            if (value < 0) {
                throw new InvalidDestinationException(
                        "host '" + rawHost + "' ends in a number but is not an IPv4 address (ambiguous)");
            }
            return new Destination(IpText.formatIpv4(IpText.ipv4Bytes(value), 0), HostKind.IPV4, port);
        }
        String problem = nameProblem(ascii);
        if (problem != null) {
            throw new InvalidDestinationException("host '" + rawHost + "': " + problem);
        }
        return new Destination(ascii, HostKind.NAME, port);
    }

    /** The address of an IP literal (4 or 16 bytes, a fresh copy), or {@code null} for a name. */
    public byte[] addressBytes() {
        switch (kind) {
            case IPV4:
                return IpText.parseIpv4Strict(host);
            case IPV6:
                return IpText.parseIpv6(host);
            default:
                return null;
        }
    }

    /** {@code host:port}, with brackets around IPv6. */
    public String authority() {
        return kind == HostKind.IPV6 ? "[" + host + "]:" + port : host + ":" + port;
    }

    /** The authority as a Host field gives it (RFC 9110 section 7.2): without the port when it is the scheme's {@code defaultPort}. */
    public String hostField(int defaultPort) {
        String name = kind == HostKind.IPV6 ? "[" + host + "]" : host;
        return port == defaultPort ? name : name + ":" + port;
    }

    private static Destination ipv6(String text, String rawHost, int port) throws InvalidDestinationException {
        if (text.indexOf('%') >= 0) {
            // A zone id names an interface of the proxy's own host: never an egress destination.
            throw new InvalidDestinationException("IPv6 zone id in host '" + rawHost + "'");
        }
        byte[] bytes = IpText.parseIpv6(text);
        if (bytes == null) {
            throw new InvalidDestinationException("malformed IPv6 address '" + rawHost + "'");
        }
        return new Destination(IpText.formatIpv6(bytes), HostKind.IPV6, port);
    }

    private static String toAscii(String raw) throws InvalidDestinationException {
        for (int i = 0; i < raw.length(); i++) {
            if (raw.charAt(i) >= 0x80) {
                try {
                    // IDNA 2003 (Nameprep) as the JDK implements it; unassigned code points fail.
                    return IDN.toASCII(raw);
                } catch (IllegalArgumentException e) {
                    throw new InvalidDestinationException("host '" + raw + "' is not a valid IDN: " + e.getMessage());
                }
            }
        }
        return raw;
    }

    /**
     * WHATWG URL "ends in a number": the last label is all decimal digits or {@code 0x} plus hex.
     * Such a host is read as IPv4 by browsers and inet_aton, so it is never treated as a name.
     */
    static boolean endsInNumber(String host) {
        String last = host.substring(host.lastIndexOf('.') + 1);
        if (last.isEmpty()) {
            return false;
        }
        int start = last.startsWith("0x") ? 2 : 0;
        int radix = start == 2 ? 16 : 10;
        for (int i = start; i < last.length(); i++) {
            if (IpText.digit(last.charAt(i), radix) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Why a lowercase ASCII name is not a valid host name, or null when it is. */
    static String nameProblem(String name) {
        if (name.length() > 253) {
            return "name longer than 253 characters";
        }
        int labelStart = 0;
        for (int i = 0; i <= name.length(); i++) {
            char c = i < name.length() ? name.charAt(i) : '.';
            if (c == '.') {
                int len = i - labelStart;
                if (len == 0) {
                    return "empty label";
                }
                if (len > 63) {
                    return "label longer than 63 characters";
                }
                labelStart = i + 1;
            } else if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return "character '" + c + "' is not allowed in a host name";
            }
        }
        return null;
    }

    private static boolean isCanonical(String host, HostKind kind) {
        switch (kind) {
            case IPV4:
                return IpText.parseIpv4Strict(host) != null;
            case IPV6:
                byte[] bytes = IpText.parseIpv6(host);
                return bytes != null && IpText.formatIpv6(bytes).equals(host);
            default:
                return nameProblem(host) == null && !endsInNumber(host);
        }
    }
}
