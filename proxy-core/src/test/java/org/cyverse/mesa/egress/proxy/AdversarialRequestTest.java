package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testkit.TouchRecorder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SPEC.md's adversarial cases against the running proxy, with raw sockets: smuggling shapes,
 * oversized and slow heads, every spelling of a refused address, names that resolve to private
 * addresses. The witness upstream (on 127.0.0.2, outside allow_private) must see nothing.
 */
class AdversarialRequestTest {

    private static TouchRecorder witness;
    private static ProxyFixture internet;

    @BeforeAll
    static void start() throws Exception {
        witness = new TouchRecorder("127.0.0.2");
        // P0 = egress N0: every public host is allowed by the list, so the address guard decides.
        // The witness's port is allowed for all of 127/8, so the list lets it through and the
        // address guard alone has to refuse it.
        internet = ProxyFixture.start("profile: P0\n"
                + "allow:\n  - host: \"127.0.0.0/8\"\n    ports: [" + witness.port() + "]\n"
                + "  - host: \"rebind.example\"\n    ports: [" + witness.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "limits:\n  max_header_bytes: 4096\n  header_timeout: 500ms\n", AdversarialRequestTest::resolve);
    }

    /** A test resolver: the names a hostile DNS would give, without touching real DNS. */
    private static List<InetAddress> resolve(String host) throws java.net.UnknownHostException {
        Map<String, String[]> names = Map.of(
                "internal.example", new String[] {"10.1.2.3"},
                "metadata.example", new String[] {"169.254.169.254"},
                "rebind.example", new String[] {"127.0.0.2", "192.168.1.1"},
                "mapped.example", new String[] {"::ffff:a9fe:a9fe"});
        String[] found = names.get(host);
        if (found == null) {
            throw new java.net.UnknownHostException(host);
        }
        InetAddress[] out = new InetAddress[found.length];
        for (int i = 0; i < found.length; i++) {
            out[i] = InetAddress.getByName(found[i]);
        }
        return List.of(out);
    }

    @AfterAll
    static void stop() throws Exception {
        internet.close();
        witness.close();
    }

    static Stream<Arguments> smuggling() {
        String target = "GET http://127.0.0.2:%d/ HTTP/1.1\r\nHost: 127.0.0.2\r\n";
        return Stream.of(
                Arguments.of("Content-Length and Transfer-Encoding",
                        "POST http://127.0.0.2:%d/ HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                Arguments.of("Transfer-Encoding and Content-Length on HTTP/1.0",
                        "POST http://127.0.0.2:%d/ HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n"),
                Arguments.of("differing duplicate Content-Length",
                        "POST http://127.0.0.2:%d/ HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde"),
                Arguments.of("Transfer-Encoding other than chunked",
                        "POST http://127.0.0.2:%d/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
                Arguments.of("obfuscated Transfer-Encoding", 
                        "POST http://127.0.0.2:%d/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
                Arguments.of("bare LF line ends", "GET http://127.0.0.2:%d/ HTTP/1.1\nHost: x\n\n"),
                Arguments.of("bare LF in one header", target + "X-A: 1\nX-B: 2\r\n\r\n"),
                Arguments.of("bare CR", target + "X-A: 1\rX-B: 2\r\n\r\n"),
                Arguments.of("obs-fold", target + "X-A: 1\r\n  continued\r\n\r\n"),
                Arguments.of("space before colon", target + "Transfer-Encoding : chunked\r\n\r\n"),
                Arguments.of("control byte in a value", target + "X-A: a\u0001b\r\n\r\n"),
                Arguments.of("NUL in a header name", target + "X-\u0000A: b\r\n\r\n"),
                Arguments.of("high byte in the request line", "GET http://127.0.0.2:%d/\u00ff HTTP/1.1\r\nHost: x\r\n\r\n"),
                Arguments.of("header without colon", target + "NoColonHere\r\n\r\n"),
                // Issue 17, item 7: a request line a lenient parser reads differently from a strict upstream.
                Arguments.of("two spaces after the method", "GET  http://127.0.0.2:%d/ HTTP/1.1\r\nHost: x\r\n\r\n"),
                Arguments.of("two spaces before the version", "GET http://127.0.0.2:%d/  HTTP/1.1\r\nHost: x\r\n\r\n"),
                Arguments.of("a tab between the parts", "GET\thttp://127.0.0.2:%d/ HTTP/1.1\r\nHost: x\r\n\r\n"),
                Arguments.of("no version", "GET http://127.0.0.2:%d/\r\nHost: x\r\n\r\n"),
                Arguments.of("a fourth part", "GET http://127.0.0.2:%d/ HTTP/1.1 extra\r\nHost: x\r\n\r\n"),
                Arguments.of("HTTP/1.2", "GET http://127.0.0.2:%d/ HTTP/1.2\r\nHost: x\r\n\r\n"),
                Arguments.of("HTTP/2.0", "GET http://127.0.0.2:%d/ HTTP/2.0\r\nHost: x\r\n\r\n"),
                Arguments.of("a lowercase version", "GET http://127.0.0.2:%d/ http/1.1\r\nHost: x\r\n\r\n"),
                Arguments.of("a method that is not a token", "G(T http://127.0.0.2:%d/ HTTP/1.1\r\nHost: x\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smuggling")
    void smugglingShapesAre400AndReachNoUpstream(String name, String request) throws Exception {
        try (RawHttp raw = new RawHttp(internet.port())) {
            RawHttp.Response response = raw.send(String.format(request, witness.port())).read();
            assertEquals(400, response.status(), name);
            assertEquals("bad_request", response.header("X-Mesa-Egress-Reason"), name);
            assertTrue(response.body().contains("\"hint\""), response.body());
            assertTrue(raw.closedByPeer(2000), "an ambiguous request closes the connection");
        }
        assertEquals(0, witness.connections(), name);
    }

    @Test
    void oversizedHeadersAre431() throws Exception {
        try (RawHttp raw = new RawHttp(internet.port())) {
            RawHttp.Response response = raw.send("GET http://example.org/ HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(5000) + "\r\n\r\n").read();
            assertEquals(431, response.status());
            assertEquals("headers_too_large", response.header("X-Mesa-Egress-Reason"));
            assertTrue(response.body().contains("max_header_bytes"), response.body());
        }
    }

    @Test
    void slowClientHitsTheHeaderTimeout() throws Exception {
        try (RawHttp raw = new RawHttp(internet.port())) {
            long start = System.nanoTime();
            RawHttp.Response response = raw.send("GET http://example.org/ HTTP/1.1\r\nHost: exa").read();
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(408, response.status());
            assertEquals("header_timeout", response.header("X-Mesa-Egress-Reason"));
            assertTrue(millis >= 400, "answered after " + millis + " ms, before the 500 ms timeout");
            assertTrue(raw.closedByPeer(2000));
        }
    }

    static Stream<Arguments> refusedAddresses() {
        return Stream.of(
                Arguments.of("127.0.0.2"), Arguments.of("127.2"), Arguments.of("0x7f.0.0.2"), Arguments.of("0177.0.0.2"),
                Arguments.of("2130706434"), Arguments.of("0x7f000002"), Arguments.of("127.0.2"), Arguments.of("[::ffff:127.0.0.2]"),
                Arguments.of("[::FFFF:7f00:2]"), Arguments.of("127.0.0.2."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedAddresses")
    void everySpellingOfALoopbackAddressIsRefused(String host) throws Exception {
        try (RawHttp raw = new RawHttp(internet.port())) {
            RawHttp.Response response = raw.send("GET http://" + host + ":" + witness.port() + "/ HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals(403, response.status(), host);
            assertEquals("address_not_allowed", response.header("X-Mesa-Egress-Reason"), host);
            assertTrue(response.body().contains("allow_private"), response.body());
        }
        assertEquals(0, witness.connections(), host);
    }

    static Stream<Arguments> metadata() {
        return Stream.of(Arguments.of("169.254.169.254"), Arguments.of("0xa9fea9fe"), Arguments.of("2852039166"),
                Arguments.of("0251.0376.0251.0376"), Arguments.of("[::ffff:169.254.169.254]"), Arguments.of("[fd00:ec2::254]"),
                Arguments.of("100.100.100.200"), Arguments.of("168.63.129.16"), Arguments.of("10.0.0.1"), Arguments.of("192.168.0.1"),
                Arguments.of("[64:ff9b::a9fe:a9fe]"), Arguments.of("[2002:a9fe:a9fe::1]"), Arguments.of("[::1]"), Arguments.of("0.0.0.0"),
                Arguments.of("metadata.example"), Arguments.of("internal.example"), Arguments.of("mapped.example"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("metadata")
    void metadataAndPrivateDestinationsAreRefusedEvenUnderN0(String host) throws Exception {
        try (RawHttp raw = new RawHttp(internet.port())) {
            RawHttp.Response response = raw.send("GET http://" + host + "/latest/meta-data/ HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals(403, response.status(), host);
            assertEquals("address_not_allowed", response.header("X-Mesa-Egress-Reason"), host);
        }
    }

    @Test
    void aNameResolvingToPrivateAddressesDialsNone() throws Exception {
        try (RawHttp raw = new RawHttp(internet.port())) {
            RawHttp.Response response = raw.send("GET http://rebind.example:" + witness.port() + "/ HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals(403, response.status());
            assertEquals("address_not_allowed", response.header("X-Mesa-Egress-Reason"));
            // Which addresses a name has is the operator's to see (in the log), not the agent's.
            assertTrue(!response.body().contains("127.0.0.2") && !response.body().contains("192.168.1.1"), response.body());
        }
        assertEquals(0, witness.connections());
    }

    @Test
    void unknownNameIs502DnsFailure() throws Exception {
        try (RawHttp raw = new RawHttp(internet.port())) {
            RawHttp.Response response = raw.send("GET http://nowhere.example/ HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals(502, response.status());
            assertEquals("dns_failure", response.header("X-Mesa-Egress-Reason"));
        }
    }

    @Test
    void metadataUnderP2IsNotEvenInTheAllowList() throws Exception {
        try (ProxyFixture p2 = ProxyFixture.start("profile: P2\n");
                RawHttp raw = new RawHttp(p2.port())) {
            RawHttp.Response response = raw.send("GET http://169.254.169.254/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n").read();
            assertEquals(403, response.status());
            assertEquals("host_not_allowed", response.header("X-Mesa-Egress-Reason"));
            assertTrue(response.body().contains("\"profile\":\"P2\""), response.body());
        }
    }
}
