package org.cyverse.mesa.egress.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DidYouMeanTest {

    private static final List<String> KEYS = List.of("host", "ports", "methods", "paths", "allow_private", "dns_timeout",
            "connect_timeout", "max_connections", "max_header_bytes");

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "hots, host",
            "port, ports",
            "method, methods",
            "alow_private, allow_private",
            "allow-private, allow_private",
            "DNS_TIMEOUT, dns_timeout",
            "conect_timeout, connect_timeout",
            "max_conections, max_connections",
            "mehtods, methods",
            "bandwidth, ''",
            "max_header, ''",
            "x, ''",
    })
    void suggestsOnlyAClearlyClosestKey(String word, String expected) {
        assertEquals(expected.isEmpty() ? Optional.empty() : Optional.of(expected), DidYouMean.closest(word, KEYS));
    }
}
