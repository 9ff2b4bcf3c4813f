package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SPEC.md decision step 4, one row per range: an address inside, and one just outside. */
class AddressGuardTest {

    private static final AddressGuard GUARD = new AddressGuard(List.of(), List.of());

    /** Literal text to an InetAddress without DNS: the bytes come from our own parser. */
    static InetAddress address(String text) throws Exception {
        return InetAddress.getByAddress(Destination.parse(text, 1).addressBytes());
    }

    @ParameterizedTest(name = "{0}: {1} refused as {2}")
    @CsvSource(delimiter = '|', value = {
        "AWS/GCP/Azure metadata          | 169.254.169.254      | cloud metadata 169.254.169.254",
        "ECS task credentials            | 169.254.170.2        | cloud metadata 169.254.170.2",
        "Azure WireServer                | 168.63.129.16        | cloud metadata 168.63.129.16",
        "Alibaba metadata                | 100.100.100.200      | cloud metadata 100.100.100.200",
        "Oracle metadata                 | 192.0.0.192          | cloud metadata 192.0.0.192",
        "broadcast                       | 255.255.255.255      | broadcast 255.255.255.255",
        "this network, first             | 0.0.0.0              | unspecified 0.0.0.0/8",
        "this network, last              | 0.255.255.255        | unspecified 0.0.0.0/8",
        "RFC 1918 10/8 first             | 10.0.0.0             | private 10.0.0.0/8",
        "RFC 1918 10/8 last              | 10.255.255.255       | private 10.0.0.0/8",
        "CGNAT first                     | 100.64.0.0           | CGNAT 100.64.0.0/10",
        "CGNAT last                      | 100.127.255.255      | CGNAT 100.64.0.0/10",
        "loopback                        | 127.0.0.1            | loopback 127.0.0.0/8",
        "loopback last                   | 127.255.255.254      | loopback 127.0.0.0/8",
        "link-local                      | 169.254.0.1          | link-local 169.254.0.0/16",
        "link-local AWS DNS              | 169.254.169.253      | link-local 169.254.0.0/16",
        "RFC 1918 172.16/12 first        | 172.16.0.1           | private 172.16.0.0/12",
        "RFC 1918 172.16/12 last         | 172.31.255.255       | private 172.16.0.0/12",
        "IETF protocol assignments       | 192.0.0.8            | IETF protocol assignments 192.0.0.0/24",
        "RFC 1918 192.168/16             | 192.168.1.1          | private 192.168.0.0/16",
        "benchmarking first              | 198.18.0.1           | benchmarking 198.18.0.0/15",
        "benchmarking last               | 198.19.255.255       | benchmarking 198.18.0.0/15",
        "multicast first                 | 224.0.0.1            | multicast 224.0.0.0/4",
        "multicast last                  | 239.255.255.255      | multicast 224.0.0.0/4",
        "reserved                        | 240.0.0.1            | reserved 240.0.0.0/4",
        "reserved last before broadcast  | 255.255.255.254      | reserved 240.0.0.0/4",
        "AWS metadata over IPv6          | fd00:ec2::254        | cloud metadata fd00:ec2::254",
        "unspecified IPv6                | ::                   | unspecified ::",
        "loopback IPv6                   | ::1                  | loopback ::1",
        "link-local IPv6 first           | fe80::1              | link-local fe80::/10",
        "link-local IPv6 last            | febf:ffff::1         | link-local fe80::/10",
        "site-local IPv6                 | fec0::1              | site-local fec0::/10",
        "unique-local fc                 | fc00::1              | unique-local fc00::/7",
        "unique-local fd                 | fdff:ffff::1         | unique-local fc00::/7",
        "multicast IPv6                  | ff02::1              | multicast ff00::/8",
        "discard IPv6                    | 100::1               | discard 100::/64",
        "local-use NAT64 public inside   | 64:ff9b:1::cb00:7101 | local-use NAT64 64:ff9b:1::/48",
        "documentation TEST-NET-1        | 192.0.2.1            | documentation 192.0.2.0/24",
        "deprecated 6to4 relay anycast   | 192.88.99.1          | deprecated 6to4 relay anycast 192.88.99.0/24",
        "documentation TEST-NET-2        | 198.51.100.7         | documentation 198.51.100.0/24",
        "documentation TEST-NET-3        | 203.0.113.7          | documentation 203.0.113.0/24",
        "IPv6 dummy prefix               | 100:0:0:1::1         | dummy prefix 100:0:0:1::/64",
        "IPv6 benchmarking               | 2001:2::1            | benchmarking 2001:2::/48",
        "IPv6 deprecated ORCHID          | 2001:10::1           | deprecated ORCHID 2001:10::/28",
        "IPv6 documentation              | 2001:db8::1          | documentation 2001:db8::/32",
        "IPv6 documentation 3fff::/20    | 3fff:fff::1          | documentation 3fff::/20",
        "IPv6 SRv6 SIDs                  | 5f00::1              | SRv6 SIDs 5f00::/16",
        "mapped documentation            | ::ffff:203.0.113.7   | documentation 203.0.113.0/24",
    })
    void refusesRange(String name, String text, String range) throws Exception {
        AddressGuard.Verdict v = GUARD.check(address(text));
        assertFalse(v.permitted(), name);
        assertEquals(range, v.range());
    }

    @ParameterizedTest(name = "{0}: {1} permitted")
    @CsvSource(delimiter = '|', value = {
        "below 10/8                      | 9.255.255.255",
        "above 10/8                      | 11.0.0.0",
        "below CGNAT                     | 100.63.255.255",
        "above CGNAT                     | 100.128.0.0",
        "below loopback                  | 126.255.255.255",
        "above loopback                  | 128.0.0.0",
        "below link-local                | 169.253.255.255",
        "above link-local                | 169.255.0.0",
        "below 172.16/12                 | 172.15.255.255",
        "above 172.16/12                 | 172.32.0.0",
        "above IETF assignments          | 192.0.1.0",
        "below 192.168/16                | 192.167.255.255",
        "above 192.168/16                | 192.169.0.0",
        "below benchmarking              | 198.17.255.255",
        "above benchmarking              | 198.20.0.0",
        "below multicast                 | 223.255.255.255",
        "beside Azure WireServer         | 168.63.129.17",
        "public                          | 1.1.1.1",
        "first after this network        | 1.0.0.0",
        "IPv6 public                     | 2606:4700::1111",
        "beside IPv6 link-local          | fe7f:ffff::1",
        "beside unique-local             | fbff:ffff::1",
        "::2 compatible public-ish       | ::101:101",
        "beside local-use NAT64          | 64:ff9b:2::1",
        "beside TEST-NET-1               | 192.0.3.0",
        "AS112 (globally reachable)      | 192.31.196.1",
        "AMT (globally reachable)        | 192.52.193.1",
        "beside the 6to4 relay anycast   | 192.88.100.0",
        "AS112 direct delegation         | 192.175.48.1",
        "beside TEST-NET-3               | 203.0.114.0",
        "beside the dummy prefix         | 100:0:0:2::1",
        "IPv6 PCP anycast (global)       | 2001:1::1",
        "IPv6 AMT (global)               | 2001:3::1",
        "IPv6 AS112 (global)             | 2001:4:112::1",
        "ORCHIDv2 (global)               | 2001:20::1",
        "Drone Remote ID (global)        | 2001:30::1",
        "AS112 2620:4f:8000::/48         | 2620:4f:8000::1",
        "beside 3fff::/20                | 3fff:1000::1",
        "beside SRv6 SIDs                | 5f01::1",
    })
    void permits(String name, String text) throws Exception {
        AddressGuard.Verdict v = GUARD.check(address(text));
        assertTrue(v.permitted(), name + ": " + v.range());
        assertNull(v.range());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "mapped private                  | ::ffff:10.0.0.1          | false | private 10.0.0.0/8",
        "mapped metadata                 | ::ffff:169.254.169.254   | false | cloud metadata 169.254.169.254",
        "mapped public                   | ::ffff:8.8.8.8           | true  | ",
        "translated private              | ::ffff:0:a00:1           | false | IPv4-translated",
        "compatible private              | ::a00:1                  | false | IPv4-compatible ::/96",
        "compatible loopback             | ::127.0.0.1              | false | loopback 127.0.0.0/8",
        "NAT64 metadata                  | 64:ff9b::a9fe:a9fe       | false | NAT64 64:ff9b::/96",
        "NAT64 public                    | 64:ff9b::808:808         | true  | ",
        "6to4 metadata                   | 2002:a9fe:a9fe::1        | false | 6to4 2002::/16",
        "6to4 loopback                   | 2002:7f00:1::            | false | loopback 127.0.0.0/8",
        "6to4 public                     | 2002:808:808::1          | true  | ",
        "Teredo private client           | 2001:0:808:808::f5ff:fffe | false | Teredo 2001::/32 client",
        "Teredo private server           | 2001:0:a00:1::3400:8c8f  | false | Teredo 2001::/32 server",
        "Teredo public both              | 2001:0:808:808::3400:8c8f | true | ",
    })
    void judgesEmbeddedIpv4(String name, String text, boolean permitted, String rangeFragment) throws Exception {
        byte[] bytes = Destination.parse(text, 1).addressBytes();
        AddressGuard.Verdict v = GUARD.check(InetAddress.getByAddress(bytes));
        assertEquals(permitted, v.permitted(), name + ": " + v.range());
        if (!permitted) {
            assertTrue(v.range().contains(rangeFragment), v.range());
        }
    }

    @Test
    void teredoClientIsXored() throws Exception {
        // RFC 4380: client 10.0.0.1 is stored inverted, as f5ff:fffe.
        AddressGuard.Verdict v = GUARD.check(address("2001:0:808:808::f5ff:fffe"));
        assertTrue(v.range().contains("embedding 10.0.0.1"), v.range());
        // Bits 7f00:0001 read plainly would be loopback; inverted they are public 128.255.255.254.
        assertTrue(GUARD.check(address("2001:0:808:808::7f00:1")).permitted());
    }

    @Test
    void mappedAddressRobustForBothJavaTypes() throws Exception {
        byte[] mapped = Destination.parse("::ffff:127.0.0.1", 1).addressBytes();
        InetAddress viaJava = InetAddress.getByAddress(mapped);
        assertInstanceOf(Inet4Address.class, viaJava, "the JDK turns mapped bytes into IPv4");
        assertFalse(GUARD.check(viaJava).permitted());
        InetAddress kept = Inet6Address.getByAddress(null, mapped, -1);
        assertInstanceOf(Inet6Address.class, kept);
        AddressGuard.Verdict v = GUARD.check(kept);
        assertFalse(v.permitted());
        assertTrue(v.range().contains("loopback 127.0.0.0/8"), v.range());
    }

    @Test
    void allowPrivateOverridesEveryRefusal() throws Exception {
        AddressGuard guard = new AddressGuard(
                List.of(Cidr.parse("127.0.0.1/32"), Cidr.parse("10.0.0.0/8"), Cidr.parse("fd00:ec2::254")),
                List.of(address("10.1.1.1")));
        assertEquals(new AddressGuard.Verdict(true, "127.0.0.1/32"), guard.check(address("127.0.0.1")));
        assertFalse(guard.check(address("127.0.0.2")).permitted(), "only the listed /32");
        assertEquals(new AddressGuard.Verdict(true, "10.0.0.0/8"), guard.check(address("10.1.1.1")),
                "the operator's CIDR wins over the proxy's own address");
        assertTrue(guard.check(address("fd00:ec2::254")).permitted());
        assertTrue(guard.check(address("::ffff:10.2.3.4")).permitted(), "mapped is judged as its IPv4");
        assertTrue(guard.check(address("64:ff9b::a00:1")).permitted(), "NAT64 is judged as its IPv4");
        assertFalse(guard.check(address("192.168.0.1")).permitted());
    }

    @Test
    void refusesOwnAddresses() throws Exception {
        AddressGuard guard = new AddressGuard(List.of(), List.of(address("8.8.4.10"), address("2606:4700::10")));
        AddressGuard.Verdict v = guard.check(address("8.8.4.10"));
        assertFalse(v.permitted());
        assertEquals("the proxy's own address 8.8.4.10", v.range());
        assertFalse(guard.check(address("2606:4700::10")).permitted());
        assertFalse(guard.check(address("::ffff:8.8.4.10")).permitted(), "mapped spelling of an own address");
        assertTrue(guard.check(address("8.8.4.11")).permitted());
    }
}
