package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** SPEC.md decision step 2: every spelling of one place canonicalizes to one host. */
class DestinationTest {

    private static final String NAME_253 = ("a".repeat(63) + ".").repeat(3) + "a".repeat(61);

    static Stream<Arguments> spellings() {
        return Stream.of(
                arguments("plain name", "github.com", "github.com", HostKind.NAME),
                arguments("uppercase and trailing dot", "GitHub.COM.", "github.com", HostKind.NAME),
                arguments("underscore label", "_dmarc.example.org", "_dmarc.example.org", HostKind.NAME),
                arguments("IDN to punycode", "bücher.example", "xn--bcher-kva.example", HostKind.NAME),
                arguments("IDN uppercase", "BÜCHER.example", "xn--bcher-kva.example", HostKind.NAME),
                arguments("IDN with ideographic dot", "bücher\u3002example", "xn--bcher-kva.example", HostKind.NAME),
                arguments("soft hyphen vanishes under Nameprep", "exa\u00ADmple.com", "example.com", HostKind.NAME),
                arguments("name with digits, last label letters", "1.2.3.example", "1.2.3.example", HostKind.NAME),
                arguments("hex-looking but not 0x", "abc.deadbeef", "abc.deadbeef", HostKind.NAME),
                arguments("name of 253 characters", NAME_253, NAME_253, HostKind.NAME),
                arguments("label of 63 characters", "a".repeat(63) + ".com", "a".repeat(63) + ".com", HostKind.NAME),
                arguments("dotted quad", "127.0.0.1", "127.0.0.1", HostKind.IPV4),
                arguments("two parts", "127.1", "127.0.0.1", HostKind.IPV4),
                arguments("three parts", "127.0.1", "127.0.0.1", HostKind.IPV4),
                arguments("hex first part", "0x7f.0.0.1", "127.0.0.1", HostKind.IPV4),
                arguments("one decimal number", "2130706433", "127.0.0.1", HostKind.IPV4),
                arguments("octal first part", "0177.0.0.1", "127.0.0.1", HostKind.IPV4),
                arguments("one hex number, uppercase", "0x7F000001", "127.0.0.1", HostKind.IPV4),
                arguments("uppercase 0X prefix", "0X7f.1", "127.0.0.1", HostKind.IPV4),
                arguments("trailing dot on address", "127.0.0.1.", "127.0.0.1", HostKind.IPV4),
                arguments("bare hex label is an address", "0x7f", "0.0.0.127", HostKind.IPV4),
                arguments("metadata as hex", "0xa9fea9fe", "169.254.169.254", HostKind.IPV4),
                arguments("metadata as decimal", "2852039166", "169.254.169.254", HostKind.IPV4),
                arguments("metadata with ideographic dots", "169\u3002254\u3002169\u3002254", "169.254.169.254", HostKind.IPV4),
                arguments("metadata with fullwidth dots", "169\uFF0E254\uFF0E169\uFF0E254", "169.254.169.254", HostKind.IPV4),
                arguments("metadata with halfwidth ideographic dots", "169\uFF61254\uFF61169\uFF61254", "169.254.169.254", HostKind.IPV4),
                arguments("fullwidth digits", "\uFF11\uFF12\uFF17.0.0.1", "127.0.0.1", HostKind.IPV4),
                arguments("octal with zero parts", "00.00.00.00", "0.0.0.0", HostKind.IPV4),
                arguments("max address", "4294967295", "255.255.255.255", HostKind.IPV4),
                arguments("bracketed loopback", "[::1]", "::1", HostKind.IPV6),
                arguments("unbracketed loopback", "::1", "::1", HostKind.IPV6),
                arguments("full zeros", "[0:0:0:0:0:0:0:1]", "::1", HostKind.IPV6),
                arguments("mapped dotted", "[::ffff:127.0.0.1]", "::ffff:127.0.0.1", HostKind.IPV6),
                arguments("mapped hex uppercase", "[::FFFF:7f00:0001]", "::ffff:127.0.0.1", HostKind.IPV6),
                arguments("mapped fully written", "[0:0:0:0:0:ffff:7f00:1]", "::ffff:127.0.0.1", HostKind.IPV6),
                arguments("compatible form stays hex", "[::10.0.0.1]", "::a00:1", HostKind.IPV6),
                arguments("leading zeros dropped", "[2001:0db8:0000:0000:0000:0000:0000:0001]", "2001:db8::1", HostKind.IPV6),
                arguments("RFC 5952: longest zero run", "[2001:db8:0:0:1:0:0:0]", "2001:db8:0:0:1::", HostKind.IPV6),
                arguments("RFC 5952: first of equal runs", "[2001:db8:0:0:1:0:0:1]", "2001:db8::1:0:0:1", HostKind.IPV6),
                arguments("RFC 5952: lone zero not compressed", "[2001:db8:0:1:1:1:1:1]", "2001:db8:0:1:1:1:1:1", HostKind.IPV6),
                arguments("unspecified", "[::]", "::", HostKind.IPV6),
                arguments("uppercase metadata", "[FD00:EC2::254]", "fd00:ec2::254", HostKind.IPV6),
                arguments("trailing zeros compressed", "[fe80:0:0:0:0:0:0:0]", "fe80::", HostKind.IPV6));
    }

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @MethodSource("spellings")
    void canonicalizes(String name, String raw, String host, HostKind kind) throws Exception {
        Destination d = Destination.parse(raw, 443);
        assertEquals(new Destination(host, kind, 443), d);
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                arguments("empty", ""),
                arguments("null", null),
                arguments("lone dot", "."),
                arguments("two trailing dots", "example.com.."),
                arguments("two trailing ideographic dots", "example\u3002\u3002"),
                arguments("empty label", "a..example.com"),
                arguments("leading dot", ".example.com"),
                arguments("label of 64 characters", "a".repeat(64) + ".com"),
                arguments("name of 254 characters", NAME_253 + "a"),
                arguments("space", "exa mple.com"),
                arguments("slash", "example.com/x"),
                arguments("at sign", "user@example.com"),
                arguments("percent-encoded", "%31%32%37.0.0.1"),
                arguments("fullwidth colon is not a separator", "\uFF1A\uFF1A1"),
                arguments("numeric last label, five parts", "1.2.3.4.5"),
                arguments("numeric last label on a name", "example.123"),
                arguments("hex last label on a name", "foo.0x7f"),
                arguments("bare 0x", "0x"),
                arguments("part over 255", "256.0.0.1"),
                arguments("last part over 255", "1.2.3.256"),
                arguments("single number over 32 bits", "4294967296"),
                arguments("two parts, last over 24 bits", "1.16777216"),
                arguments("octal digit 8", "0178.0.0.1"),
                arguments("bad hex", "0xg.0.0.1"),
                arguments("empty part", "1..2.3"),
                arguments("zone id", "[fe80::1%eth0]"),
                arguments("encoded zone id", "[fe80::1%25eth0]"),
                arguments("unbalanced bracket", "[::1"),
                arguments("closing bracket only", "::1]"),
                arguments("empty brackets", "[]"),
                arguments("name in brackets", "[example.com]"),
                arguments("IPv6 too many groups", "[1:2:3:4:5:6:7:8:9]"),
                arguments("IPv6 two gaps", "[1::2::3]"),
                arguments("IPv6 triple colon", "[1:::2]"),
                arguments("IPv6 group of five digits", "[12345::1]"),
                arguments("IPv6 gap with eight groups", "[1:2:3:4::5:6:7:8]"),
                arguments("IPv6 leading single colon", "[:1::2]"),
                arguments("IPv6 embedded IPv4 not last", "[::1.2.3.4:1]"),
                arguments("IPv6 embedded loose IPv4", "[::ffff:127.1]"),
                arguments("IPv6 embedded octal-looking IPv4", "[::ffff:0177.0.0.1]"),
                arguments("IPv6 fullwidth hex digit", "[::\uFF11]"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("invalid")
    void refuses(String name, String raw) {
        assertThrows(InvalidDestinationException.class, () -> Destination.parse(raw, 443));
    }

    @ParameterizedTest(name = "port {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, -1, 65536})
    void refusesPortsOutsideRange(int port) {
        assertThrows(InvalidDestinationException.class, () -> Destination.parse("example.com", port));
    }

    @Test
    void acceptsPortBounds() throws Exception {
        assertEquals(1, Destination.parse("example.com", 1).port());
        assertEquals(65535, Destination.parse("example.com", 65535).port());
    }

    @Test
    void addressBytes() throws Exception {
        assertArrayEquals(new byte[] {127, 0, 0, 1}, Destination.parse("0x7f.1", 80).addressBytes());
        byte[] mapped = Destination.parse("[::ffff:10.0.0.1]", 80).addressBytes();
        assertEquals(16, mapped.length);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 10, 0, 0, 1}, mapped);
        assertNull(Destination.parse("example.com", 80).addressBytes());
        Destination d = Destination.parse("10.0.0.1", 80);
        d.addressBytes()[0] = 99;
        assertEquals(10, d.addressBytes()[0], "addressBytes must hand out a copy");
    }

    @Test
    void authorityBracketsIpv6() throws Exception {
        assertEquals("[::1]:8080", Destination.parse("0:0::1", 8080).authority());
        assertEquals("127.0.0.1:80", Destination.parse("127.1", 80).authority());
    }

    @Test
    void constructorRefusesNonCanonicalText() {
        assertThrows(IllegalArgumentException.class, () -> new Destination("GitHub.com", HostKind.NAME, 443));
        assertThrows(IllegalArgumentException.class, () -> new Destination("127.1", HostKind.IPV4, 443));
        assertThrows(IllegalArgumentException.class, () -> new Destination("127.0.0.1", HostKind.NAME, 443));
        assertThrows(IllegalArgumentException.class, () -> new Destination("0:0::1", HostKind.IPV6, 443));
        assertThrows(IllegalArgumentException.class, () -> new Destination("github.com", HostKind.NAME, 0));
    }
}
