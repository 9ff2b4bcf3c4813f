package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostPatternTest {

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource({
        "exact name,                 github.com,            github.com",
        "uppercase and trailing dot, GitHub.COM.,           github.com",
        "IDN,                        bücher.example,        xn--bcher-kva.example",
        "suffix,                     *.Example.org,         *.example.org",
        "IDN suffix,                 *.bücher.example,      *.xn--bcher-kva.example",
        "loose IPv4,                 0x7f.1,                127.0.0.1",
        "IPv6,                       [0:0::1],              ::1",
        "IPv4-mapped is its IPv4,    ::ffff:203.0.113.7,    203.0.113.7",
        "CIDR,                       10.0.0.0/8,            10.0.0.0/8",
        "IPv6 CIDR,                  2001:DB8::/32,         2001:db8::/32",
    })
    void parsesToCanonicalText(String name, String text, String canonical) {
        assertEquals(canonical, HostPattern.parse(text).toString());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "empty,                     ''",
        "bare star,                 *",
        "double star,               **.example.org",
        "star in the middle,        a.*.b",
        "star glued to a label,     *example.org",
        "star inside a label,       *x.org",
        "star at the end,           example.*",
        "two wildcard labels,       *.*.example.org",
        "wildcard without domain,   *.",
        "wildcard on an address,    *.10.0.0.1",
        "empty label,               a..example.org",
        "ambiguous number,          example.123",
        "CIDR with host bits,       10.0.0.1/8",
        "space,                     exa mple.org",
    })
    void refuses(String name, String text) {
        assertThrows(IllegalArgumentException.class, () -> HostPattern.parse(text));
    }

    @Test
    void bareStarPointsToN0() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostPattern.parse("*"));
        assertTrue(e.getMessage().contains("N0"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}: {1} vs {2} = {3}")
    @CsvSource({
        "exact,                          github.com,       github.com,             true",
        "exact in another spelling,        github.com,       GITHUB.com.,            true",
        "exact does not take subdomain,  github.com,       api.github.com,         false",
        "exact does not take lookalike,  github.com,       github.com.evil.org,    false",
        "suffix takes subdomain,         *.example.org,    api.example.org,        true",
        "suffix takes any depth,         *.example.org,    a.b.c.example.org,      true",
        "suffix not the apex,            *.example.org,    example.org,            false",
        "suffix not a glued name,        *.example.org,    badexample.org,         false",
        "suffix not a longer tld,        *.example.org,    api.example.org.evil,   false",
        "IPv4 literal any spelling,      127.0.0.1,        2130706433,             true",
        "IPv4 literal other address,     127.0.0.1,        127.0.0.2,              false",
        "IPv4 literal via mapped IPv6,   203.0.113.7,      [::ffff:203.0.113.7],   true",
        "IPv4 literal via NAT64,         203.0.113.7,      [64:ff9b::cb00:7107],   true",
        "IPv4 literal not via 6to4,      203.0.113.7,      [2002:cb00:7107::1],    false",
        "IPv6 literal,                   ::1,              [0:0:0:0:0:0:0:1],      true",
        "IPv6 literal not IPv4,          ::1,              127.0.0.1,              false",
        "CIDR takes inside,              10.0.0.0/8,       10.9.8.7,               true",
        "CIDR not outside,               10.0.0.0/8,       11.0.0.1,               false",
        "CIDR via mapped IPv6,           10.0.0.0/8,       [::ffff:10.1.2.3],      true",
        "IPv6 CIDR,                      2001:db8::/32,    [2001:db8:1::5],        true",
        "name pattern never an address,  localhost,        127.0.0.1,              false",
        "address pattern never a name,   127.0.0.1,        localhost,              false",
        "CIDR never a name,              0.0.0.0/0,        example.org,            false",
    })
    void matches(String name, String pattern, String host, boolean expected) throws Exception {
        assertEquals(expected, HostPattern.parse(pattern).matches(Destination.parse(host, 443)));
    }

    @Test
    void anyMatchesEverything() throws Exception {
        assertTrue(HostPattern.any().matches(Destination.parse("example.org", 1)));
        assertTrue(HostPattern.any().matches(Destination.parse("::1", 1)));
        assertEquals("*", HostPattern.any().toString());
    }

    @Test
    void equalPatternsFromDifferentSpellings() {
        assertEquals(HostPattern.parse("GitHub.com."), HostPattern.parse("github.com"));
        assertEquals(HostPattern.parse("*.EXAMPLE.org"), HostPattern.parse("*.example.org"));
        assertEquals(HostPattern.parse("127.1").hashCode(), HostPattern.parse("127.0.0.1").hashCode());
    }
}
