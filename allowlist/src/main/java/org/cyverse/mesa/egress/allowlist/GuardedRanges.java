package org.cyverse.mesa.egress.allowlist;

import java.util.List;

/**
 * The ranges {@link AddressGuard} refuses, most specific first so the verdict names the
 * metadata service rather than the range around it. Sources: every entry of the IANA IPv4 and
 * IPv6 Special-Purpose Address Registries (RFC 6890; iana.org/assignments/iana-ipv4-special-registry
 * and iana-ipv6-special-registry) whose "Globally Reachable" is false or N/A, the IPv4 and IPv6
 * multicast and reserved blocks, and the cloud providers' metadata documentation. Entries the
 * registries mark globally reachable (192.0.0.9 and .10 aside, which 192.0.0.0/24 covers) stay
 * reachable: AS112 192.31.196.0/24, 192.175.48.0/24, 2001:4:112::/48, 2620:4f:8000::/48, AMT
 * 192.52.193.0/24, 2001:3::/32, ORCHIDv2 2001:20::/28, Drone Remote ID 2001:30::/28, and the
 * anycast addresses 2001:1::1 to 2001:1::3. The embedding forms (mapped, NAT64 64:ff9b::/96, 6to4,
 * Teredo) are judged by the address they embed ({@link AddressGuard}).
 */
final class GuardedRanges {

    private record Range(Cidr cidr, String label) {
        String describe() {
            String net = cidr.toString();
            boolean single = cidr.prefixLength() == cidr.networkBytes().length * 8;
            // A single metadata address reads better without "/32".
            return label + " " + (single ? net.substring(0, net.indexOf('/')) : net);
        }
    }

    private static final List<Range> IPV4 = List.of(
            range("169.254.169.254", "cloud metadata"), // AWS, GCP, Azure, OCI, OpenStack, ...
            range("169.254.170.2", "cloud metadata"), // AWS ECS task credentials
            range("168.63.129.16", "cloud metadata"), // Azure WireServer (public-looking)
            range("100.100.100.200", "cloud metadata"), // Alibaba Cloud
            range("192.0.0.192", "cloud metadata"), // Oracle Cloud
            range("255.255.255.255/32", "broadcast"),
            range("0.0.0.0/8", "unspecified"), // "this network"; 0.0.0.0 reaches localhost on Linux
            range("10.0.0.0/8", "private"),
            range("100.64.0.0/10", "CGNAT"),
            range("127.0.0.0/8", "loopback"),
            range("169.254.0.0/16", "link-local"),
            range("172.16.0.0/12", "private"),
            range("192.0.0.0/24", "IETF protocol assignments"), // RFC 6890
            range("192.0.2.0/24", "documentation"), // TEST-NET-1, RFC 5737
            range("192.88.99.0/24", "deprecated 6to4 relay anycast"), // RFC 7526
            range("192.168.0.0/16", "private"),
            range("198.18.0.0/15", "benchmarking"), // RFC 2544
            range("198.51.100.0/24", "documentation"), // TEST-NET-2, RFC 5737
            range("203.0.113.0/24", "documentation"), // TEST-NET-3, RFC 5737
            range("224.0.0.0/4", "multicast"),
            range("240.0.0.0/4", "reserved"));

    private static final List<Range> IPV6 = List.of(
            range("fd00:ec2::254", "cloud metadata"), // AWS IMDS over IPv6
            range("::/128", "unspecified"),
            range("::1/128", "loopback"),
            range("fe80::/10", "link-local"),
            range("fec0::/10", "site-local"),
            range("fc00::/7", "unique-local"),
            range("ff00::/8", "multicast"),
            range("100::/64", "discard"), // RFC 6666
            range("100:0:0:1::/64", "dummy prefix"), // RFC 9780
            range("2001:2::/48", "benchmarking"), // RFC 5180
            range("2001:10::/28", "deprecated ORCHID"), // RFC 4843
            range("2001:db8::/32", "documentation"), // RFC 3849
            range("3fff::/20", "documentation"), // RFC 9637
            range("5f00::/16", "SRv6 SIDs"), // RFC 9602
            // RFC 8215: a local translator, whose IPv4 side is the operator's own network.
            range("64:ff9b:1::/48", "local-use NAT64"));

    static final Cidr IPV4_TRANSLATED = Cidr.parse("::ffff:0:0:0/96");
    static final Cidr IPV4_COMPATIBLE = Cidr.parse("::/96");
    static final Cidr NAT64 = Cidr.parse("64:ff9b::/96");
    static final Cidr SIX_TO_FOUR = Cidr.parse("2002::/16");
    static final Cidr TEREDO = Cidr.parse("2001::/32");

    private GuardedRanges() {}

    /** Why the address is refused by range, or null when no range refuses it. */
    static String refusal(byte[] address) {
        for (Range r : address.length == 4 ? IPV4 : IPV6) {
            if (r.cidr().contains(address)) {
                return r.describe();
            }
        }
        return null;
    }

    static byte[] last32(byte[] b) {
        return new byte[] {b[12], b[13], b[14], b[15]};
    }

    private static Range range(String cidr, String label) {
        return new Range(Cidr.parse(cidr), label);
    }
}
