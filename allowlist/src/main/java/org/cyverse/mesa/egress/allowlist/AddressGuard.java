package org.cyverse.mesa.egress.allowlist;

import java.net.InetAddress;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * SPEC.md decision step 4: refuses addresses a sandboxed agent must never reach, however they
 * are spelled: loopback, RFC 1918, CGNAT 100.64/10, link-local, unique-local, multicast,
 * unspecified, broadcast, reserved, cloud metadata addresses (169.254.169.254, fd00:ec2::254,
 * 100.100.100.200, 168.63.129.16, 192.0.0.192, ...), IPv6 forms that embed IPv4 (mapped,
 * compatible, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) judged by
 * the embedded address, and the proxy's own addresses; unless a CIDR of
 * {@code network.allow_private} covers the address.
 *
 * <p>The threat is a name that resolves (or a literal that points) inside the sandbox's own
 * network: the metadata service hands out cloud credentials, the pod network exposes
 * unauthenticated services, the proxy itself has an admin port. Every range the IANA
 * special-purpose registries mark not globally reachable is refused, documentation ranges included
 * (a test that stands them in for public hosts lists them in {@code network.allow_private}). The
 * full table is in {@link GuardedRanges}. Immutable and thread-safe.
 */
public final class AddressGuard {

    private final List<Cidr> allowPrivate;
    /** Canonical text of each own address; IPv4-mapped ones are judged as IPv4 anyway. */
    private final Set<String> ownAddresses = new HashSet<>();

    /**
     * @param allowPrivate CIDRs that override the guard (e.g. 127.0.0.1/32 in tests)
     * @param ownAddresses the proxy host's own interface addresses
     */
    public AddressGuard(List<Cidr> allowPrivate, Collection<InetAddress> ownAddresses) {
        this.allowPrivate = List.copyOf(allowPrivate);
        for (InetAddress own : ownAddresses) {
            this.ownAddresses.add(text(own.getAddress()));
        }
    }

    /**
     * Judges one resolved or literal address. A CIDR of {@code allow_private} wins over every
     * refusal, the proxy's own addresses included: the operator listed it on purpose.
     */
    public Verdict check(InetAddress address) {
        Objects.requireNonNull(address, "address");
        return judge(address.getAddress());
    }

    private Verdict judge(byte[] bytes) {
        for (Cidr c : allowPrivate) {
            if (c.contains(bytes)) {
                return new Verdict(true, c.toString());
            }
        }
        if (IpText.isIpv4Mapped(bytes)) {
            // Java hands ::ffff:a.b.c.d over as Inet4Address, but a caller may build the bytes.
            return embedded(bytes, "IPv4-mapped ::ffff:0:0/96", GuardedRanges.last32(bytes));
        }
        String text = text(bytes);
        if (ownAddresses.contains(text)) {
            return new Verdict(false, "the proxy's own address " + text);
        }
        String refused = GuardedRanges.refusal(bytes);
        if (refused != null) {
            return new Verdict(false, refused);
        }
        return bytes.length == 4 ? new Verdict(true, null) : embeddedIpv4(bytes);
    }

    /** IPv6 forms that carry an IPv4 address a relay or translator will deliver to. */
    private Verdict embeddedIpv4(byte[] b) {
        if (GuardedRanges.IPV4_TRANSLATED.contains(b)) {
            return embedded(b, "IPv4-translated ::ffff:0:0:0/96", GuardedRanges.last32(b));
        }
        if (GuardedRanges.IPV4_COMPATIBLE.contains(b)) {
            return embedded(b, "IPv4-compatible ::/96", GuardedRanges.last32(b));
        }
        if (GuardedRanges.NAT64.contains(b)) {
            return embedded(b, "NAT64 64:ff9b::/96", GuardedRanges.last32(b));
        }
        if (GuardedRanges.SIX_TO_FOUR.contains(b)) {
            return embedded(b, "6to4 2002::/16", new byte[] {b[2], b[3], b[4], b[5]});
        }
        if (GuardedRanges.TEREDO.contains(b)) {
            Verdict server = embedded(b, "Teredo 2001::/32 server", new byte[] {b[4], b[5], b[6], b[7]});
            if (!server.permitted()) {
                return server;
            }
            // RFC 4380 section 4: the client's public address is stored with every bit inverted.
            byte[] client = GuardedRanges.last32(b);
            for (int i = 0; i < 4; i++) {
                client[i] = (byte) ~client[i];
            }
            return embedded(b, "Teredo 2001::/32 client", client);
        }
        return new Verdict(true, null);
    }

    private Verdict embedded(byte[] outer, String form, byte[] ipv4) {
        Verdict inner = judge(ipv4);
        if (inner.permitted()) {
            return inner;
        }
        return new Verdict(false, form + " " + text(outer) + " embedding " + IpText.formatIpv4(ipv4, 0) + ": " + inner.range());
    }

    private static String text(byte[] bytes) {
        return bytes.length == 4 ? IpText.formatIpv4(bytes, 0) : IpText.formatIpv6(bytes);
    }

    /**
     * @param permitted whether the proxy may dial the address
     * @param range when refused, the range that refused it for a person, e.g.
     *     {@code "cloud metadata 169.254.169.254"} or {@code "loopback 127.0.0.0/8"}; when
     *     permitted, {@code null} or the allow_private CIDR that let it through
     */
    public record Verdict(boolean permitted, String range) {}
}
