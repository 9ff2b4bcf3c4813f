package org.cyverse.mesa.egress.allowlist;

import java.util.Objects;

/**
 * The host part of a rule: an exact name, {@code *.suffix} (subdomains, not the apex), an IP
 * address, a CIDR, or {@link #any()} (egress class N0).
 *
 * <p>Names only match names and addresses only match IP literals: a rule for
 * {@code github.com} says nothing about whatever address a client types, and the address guard
 * judges resolved addresses separately. An IPv4 address or CIDR also matches the IPv6 literals
 * that reach the same IPv4 host, IPv4-mapped {@code ::ffff:a.b.c.d} and NAT64
 * {@code 64:ff9b::/96}, so a deny entry for {@code 203.0.113.0/24} cannot be walked around by
 * writing {@code [::ffff:203.0.113.7]}; an IPv4-mapped pattern is stored as its IPv4 address.
 */
public final class HostPattern {

    /** What a pattern is; {@link Policy} indexes each kind its own way. */
    enum Kind { ANY, EXACT, SUFFIX, ADDRESS, CIDR }

    private static final HostPattern ANY = new HostPattern(Kind.ANY, "*", null, null);

    private final Kind kind;
    /** EXACT: the name; SUFFIX: the name after "*."; ADDRESS: the canonical literal; ANY: "*". */
    private final String key;
    /** ADDRESS: IPV4 or IPV6. */
    private final HostKind addressKind;
    private final Cidr cidr;

    private HostPattern(Kind kind, String key, HostKind addressKind, Cidr cidr) {
        this.kind = kind;
        this.key = key;
        this.addressKind = addressKind;
        this.cidr = cidr;
    }

    /**
     * Parses a pattern as the config file spells it; names are canonicalized as
     * {@link Destination#parse} does, so {@code GitHub.com.} equals {@code github.com}.
     *
     * @throws IllegalArgumentException with a message for a person (e.g. a bare {@code *},
     *     {@code foo.*.org}, {@code *example.org}, an empty label)
     */
    public static HostPattern parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("empty host pattern");
        }
        if (text.equals("*")) {
            throw new IllegalArgumentException("host pattern '*' would allow every host; use egress class N0 for that");
        }
        if (text.indexOf('/') >= 0) {
            return new HostPattern(Kind.CIDR, null, null, Cidr.parse(text));
        }
        boolean wildcard = text.startsWith("*.");
        String rest = wildcard ? text.substring(2) : text;
        if (rest.indexOf('*') >= 0) {
            throw new IllegalArgumentException("host pattern '" + text
                    + "': '*' is only allowed as a whole first label, as in *.example.org");
        }
        Destination d;
        try {
            d = Destination.parse(rest, 1);
        } catch (InvalidDestinationException e) {
            throw new IllegalArgumentException("host pattern '" + text + "': " + e.getMessage(), e);
        }
        if (d.kind() == HostKind.NAME) {
            return new HostPattern(wildcard ? Kind.SUFFIX : Kind.EXACT, d.host(), null, null);
        }
        if (wildcard) {
            throw new IllegalArgumentException("host pattern '" + text
                    + "': a wildcard needs a domain name, not an IP address; use a CIDR for address ranges");
        }
        if (IpText.isIpv4Mapped(d.addressBytes())) {
            return new HostPattern(Kind.ADDRESS, IpText.formatIpv4(IpText.reachedIpv4(d.addressBytes()), 0), HostKind.IPV4, null);
        }
        return new HostPattern(Kind.ADDRESS, d.host(), d.kind(), null);
    }

    /** Matches every destination (N0; the address guard still applies). */
    public static HostPattern any() {
        return ANY;
    }

    /** Whether the canonical destination's host is covered; the port is the rule's business. */
    public boolean matches(Destination destination) {
        switch (kind) {
            case ANY:
                return true;
            case EXACT:
                return destination.kind() == HostKind.NAME && destination.host().equals(key);
            case SUFFIX:
                String host = destination.host();
                return destination.kind() == HostKind.NAME
                        && host.length() > key.length() + 1
                        && host.endsWith(key)
                        && host.charAt(host.length() - key.length() - 1) == '.';
            case ADDRESS:
                if (destination.kind() == addressKind) {
                    return destination.host().equals(key);
                }
                byte[] reached = ipv4Reached(destination);
                return addressKind == HostKind.IPV4 && reached != null && IpText.formatIpv4(reached, 0).equals(key);
            default:
                byte[] bytes = destination.addressBytes();
                if (bytes == null) {
                    return false;
                }
                byte[] v4 = ipv4Reached(destination);
                return cidr.contains(bytes) || v4 != null && cidr.contains(v4);
        }
    }

    /**
     * The pattern as it would be written in the config file; {@link #any()} reads {@code *}
     * (which {@link #parse} refuses: N0 is chosen by egress class, not by an allow entry).
     */
    @Override
    public String toString() {
        switch (kind) {
            case SUFFIX:
                return "*." + key;
            case CIDR:
                return cidr.toString();
            default:
                return key;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof HostPattern)) {
            return false;
        }
        HostPattern other = (HostPattern) o;
        return kind == other.kind && Objects.equals(key, other.key) && Objects.equals(cidr, other.cidr);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, key, cidr);
    }

    /** For an IPv6 literal, the IPv4 host it reaches directly (see the class comment), else null. */
    static byte[] ipv4Reached(Destination destination) {
        return destination.kind() == HostKind.IPV6 ? IpText.reachedIpv4(destination.addressBytes()) : null;
    }

    Kind kind() {
        return kind;
    }

    /** The one name this pattern matches ({@code api.github.com}), or null for a wildcard, an address or a range. */
    public String exactName() {
        return kind == Kind.EXACT ? key : null;
    }

    /** See the field; null for a CIDR. */
    String key() {
        return key;
    }

    Cidr cidr() {
        return cidr;
    }
}
