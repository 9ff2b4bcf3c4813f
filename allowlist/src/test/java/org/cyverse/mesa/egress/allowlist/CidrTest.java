package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class CidrTest {

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource({
        "IPv4 network,            10.0.0.0/8,           10.0.0.0/8",
        "bare IPv4 is /32,        127.0.0.1,            127.0.0.1/32",
        "loose IPv4 spelling,     0x7f.1/32,            127.0.0.1/32",
        "zero prefix,             0.0.0.0/0,            0.0.0.0/0",
        "IPv6 network,            FC00::/7,             fc00::/7",
        "bare IPv6 is /128,       ::1,                  ::1/128",
        "bracketed IPv6,          [fe80::]/10,          fe80::/10",
        "odd prefix,              100.64.0.0/10,        100.64.0.0/10",
        "IPv6 zero prefix,        ::/0,                 ::/0",
    })
    void parsesToCanonicalText(String name, String text, String canonical) {
        assertEquals(canonical, Cidr.parse(text).toString());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "empty,                   ''",
        "a name,                  example.com/8",
        "prefix too long v4,      10.0.0.0/33",
        "prefix too long v6,      ::/129",
        "negative prefix,         10.0.0.0/-1",
        "plus sign,               10.0.0.0/+8",
        "empty prefix,            10.0.0.0/",
        "two slashes,             10.0.0.0/8/8",
        "bad address,             300.0.0.0/8",
        "zone id,                 fe80::%eth0/64",
    })
    void refuses(String name, String text) {
        assertThrows(IllegalArgumentException.class, () -> Cidr.parse(text));
    }

    @Test
    void hostBitsSetSuggestsTheNetwork() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.1.2.3/8"));
        assertTrue(e.getMessage().contains("10.0.0.0/8"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("fd00:ec2::254/32"));
        assertTrue(e.getMessage().contains("fd00:ec2::/32"), e.getMessage());
    }

    static Stream<Arguments> membership() {
        return Stream.of(
                arguments("first of /8", "10.0.0.0/8", "10.0.0.0", true),
                arguments("last of /8", "10.0.0.0/8", "10.255.255.255", true),
                arguments("just below /8", "10.0.0.0/8", "9.255.255.255", false),
                arguments("just above /8", "10.0.0.0/8", "11.0.0.0", false),
                arguments("inside /10", "100.64.0.0/10", "100.127.255.255", true),
                arguments("above /10", "100.64.0.0/10", "100.128.0.0", false),
                arguments("below /10", "100.64.0.0/10", "100.63.255.255", false),
                arguments("/32 exact", "127.0.0.1/32", "127.0.0.1", true),
                arguments("/32 neighbour", "127.0.0.1/32", "127.0.0.2", false),
                arguments("/0 takes all v4", "0.0.0.0/0", "203.0.113.9", true),
                arguments("/0 v4 not v6", "0.0.0.0/0", "::1", false),
                arguments("/0 v6 not v4", "::/0", "127.0.0.1", false),
                arguments("fc00::/7 takes fd", "fc00::/7", "fd00:ec2::254", true),
                arguments("fc00::/7 not fe", "fc00::/7", "fe00::1", false),
                arguments("fe80::/10 last", "fe80::/10", "febf:ffff::1", true),
                arguments("fe80::/10 next", "fe80::/10", "fec0::1", false),
                arguments("/128", "::1/128", "::1", true),
                arguments("/128 neighbour", "::1/128", "::2", false));
    }

    @ParameterizedTest(name = "{0}: {2} in {1} = {3}")
    @MethodSource("membership")
    void contains(String name, String cidr, String address, boolean expected) throws Exception {
        assertEquals(expected, Cidr.parse(cidr).contains(Destination.parse(address, 1).addressBytes()));
    }

    @Test
    void containsRefusesWrongLengths() {
        assertEquals(false, Cidr.parse("0.0.0.0/0").contains(null));
        assertEquals(false, Cidr.parse("0.0.0.0/0").contains(new byte[5]));
    }

    @Test
    void equalityFollowsCanonicalForm() {
        assertEquals(Cidr.parse("10.0.0.0/8"), Cidr.parse("012.0.0.0/8"));
        assertEquals(Cidr.parse("10.0.0.0/8").hashCode(), Cidr.parse("10.0/8").hashCode());
        assertNotEquals(Cidr.parse("10.0.0.0/8"), Cidr.parse("10.0.0.0/9"));
    }
}
