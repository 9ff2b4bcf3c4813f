package org.cyverse.mesa.egress.proxy;

import static org.cyverse.mesa.egress.testkit.ClientHellos.concat;
import static org.cyverse.mesa.egress.testkit.ClientHellos.message;
import static org.cyverse.mesa.egress.testkit.ClientHellos.record;
import static org.cyverse.mesa.egress.testkit.ClientHellos.slice;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Domain fronting past the server-name check (issue 17, item 1): an opaque tunnel to an allowed
 * front host whose bytes frame a ClientHello for a deny-listed name on the same address so that
 * the check sees no name. The upstream is a real TLS server holding a certificate for both names;
 * it records the bytes each connection brought and the server name of each handshake. Every
 * framing but a well-formed ClientHello closes the tunnel before a byte reaches it.
 */
class DomainFrontingTest {

    /** What one connection to the two-name server brought. */
    record Visit(int bytes, String serverName, String outcome) {}

    private static TestPki pki;
    private static ServerSocket server;
    private static final List<Visit> VISITS = new CopyOnWriteArrayList<>();
    private static ProxyFixture proxy;
    private static ProxyFixture requiringSni;

    @BeforeAll
    static void start() throws Exception {
        pki = new TestPki("fronting");
        SSLContext context = pki.serverContext("front.test", "hidden.test");
        server = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    socket.setSoTimeout(3000);
                    byte[] first = new byte[16384];
                    int n;
                    try {
                        n = socket.getInputStream().read(first);
                    } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
                        n = -1;
                    }
                    if (n <= 0) {
                        VISITS.add(new Visit(0, null, "no bytes"));
                        continue;
                    }
                    String[] asked = new String[1];
                    SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket,
                            new ByteArrayInputStream(first, 0, n), false);
                    tls.setUseClientMode(false);
                    SSLParameters params = tls.getSSLParameters();
                    params.setSNIMatchers(List.of(new SNIMatcher(0) {
                        @Override
                        public boolean matches(SNIServerName name) {
                            asked[0] = new String(name.getEncoded(), StandardCharsets.US_ASCII);
                            return true;
                        }
                    }));
                    tls.setSSLParameters(params);
                    String outcome;
                    try {
                        tls.startHandshake();
                        outcome = "handshake";
                    } catch (java.io.IOException e) {
                        outcome = "failed: " + e.getMessage();
                    }
                    VISITS.add(new Visit(n, asked[0], outcome));
                } catch (java.io.IOException e) {
                    // the server closed
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        String yaml = "profile: P2\nallow:\n  - host: front.test\n    ports: [" + server.getLocalPort() + "]\n"
                + "deny:\n  - host: hidden.test\nnetwork:\n  allow_private: [\"127.0.0.1/32\"]\n";
        proxy = ProxyFixture.start(yaml, host -> List.of(InetAddress.getByName("127.0.0.1")));
        requiringSni = ProxyFixture.start(yaml + "tls:\n  require_sni: true\n", host -> List.of(InetAddress.getByName("127.0.0.1")));
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        requiringSni.close();
        server.close();
    }

    /** The first record(s) a JDK client sends: a real TLS 1.3 ClientHello for {@code name}. */
    private static byte[] jdkHello(String name) throws Exception {
        SSLEngine engine = TestPki.trusting(pki.ca()).createSSLEngine(name, 443);
        engine.setUseClientMode(true);
        SSLParameters params = engine.getSSLParameters();
        params.setServerNames(List.of(new SNIHostName(name)));
        engine.setSSLParameters(params);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.beginHandshake();
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] bytes = new byte[out.remaining()];
        out.get(bytes);
        return bytes;
    }

    /** The ClientHello's handshake message, out of its one record. */
    private static byte[] jdkHelloMessage(String name) throws Exception {
        byte[] record = jdkHello(name);
        return slice(record, 5, record.length);
    }

    static Stream<Arguments> framings() throws Exception {
        byte[] hidden = jdkHelloMessage("hidden.test");
        return Stream.of(
                Arguments.of("an empty handshake record, then a ClientHello for the hidden name",
                        concat(record(22, new byte[0]), record(22, hidden))),
                Arguments.of("change_cipher_spec, then the hidden ClientHello", concat(record(20, new byte[] {1}), record(22, hidden))),
                Arguments.of("the hidden ClientHello split around an alert",
                        concat(record(22, slice(hidden, 0, 40)), record(21, new byte[] {1, 0}), record(22, slice(hidden, 40, hidden.length)))),
                Arguments.of("one server_name list naming the front and the hidden host", record(22, message("front.test", "hidden.test"))),
                Arguments.of("a handshake message that is not a ClientHello, then the hidden one",
                        concat(record(22, new byte[] {11, 0, 0, 0}), record(22, hidden))),
                Arguments.of("bytes that only look like a TLS record", "\u0016\u0003\u0001\u0000\u0004GET / HTTP/1.1\r\n\r\n"
                        .getBytes(StandardCharsets.ISO_8859_1)));
    }

    /** CONNECT to the front host, send {@code bytes}, expect the proxy to close the tunnel; the audit record's client field. */
    private static String tunnelClosedAfter(ProxyFixture through, byte[] bytes) throws Exception {
        try (RawHttp raw = new RawHttp(through.port())) {
            String target = "front.test:" + server.getLocalPort();
            assertEquals(200, raw.send("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n").read().status());
            raw.send(bytes);
            assertTrue(raw.closedByPeer(3000), "the proxy closed the tunnel");
            return "127.0.0.1:" + raw.socket().getLocalPort();
        }
    }

    private static List<Visit> visitsAfter(int before) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (VISITS.size() <= before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Thread.sleep(100);
        return VISITS.subList(before, VISITS.size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("framings")
    void aFramedClientHelloClosesTheTunnelBeforeAByteReachesTheUpstream(String name, byte[] bytes) throws Exception {
        int before = VISITS.size();
        String client = tunnelClosedAfter(proxy, bytes);
        // The tunnel's upstream connection was dialled at CONNECT time; it must have carried nothing.
        List<Visit> visits = visitsAfter(before);
        assertTrue(visits.stream().allMatch(v -> v.bytes() == 0), "the upstream got bytes: " + visits);
        JsonNode refused = proxy.awaitAuditRecord(r -> client.equals(r.path("client").asText()));
        assertEquals("deny", refused.path("decision").asText(), refused.toString());
        assertEquals("bad_request", refused.path("reason").asText(), refused.toString());
        assertEquals("front.test", refused.path("host").asText());
    }

    /** The control: a real client's hello for the front host, whole or split across records as TLS allows, reaches the upstream. */
    @Test
    void aWellFormedClientHelloForTheFrontHostIsRelayed() throws Exception {
        byte[] front = jdkHelloMessage("front.test");
        for (byte[] bytes : List.of(record(22, front), concat(record(22, slice(front, 0, 100)), record(22, slice(front, 100, front.length))))) {
            int before = VISITS.size();
            try (RawHttp raw = new RawHttp(proxy.port())) {
                String target = "front.test:" + server.getLocalPort();
                assertEquals(200, raw.send("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n").read().status());
                raw.send(bytes);
                List<Visit> visits = visitsAfter(before);
                assertTrue(visits.stream().anyMatch(v -> v.bytes() == bytes.length && "front.test".equals(v.serverName())),
                        "the upstream read the front host's hello: " + visits);
            }
        }
    }

    @Test
    void aClientHelloWithoutAServerNameIsRelayedUnlessTlsRequireSni() throws Exception {
        byte[] anonymous = record(22, message());
        int before = VISITS.size();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            String target = "front.test:" + server.getLocalPort();
            assertEquals(200, raw.send("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n").read().status());
            raw.send(anonymous);
            assertTrue(visitsAfter(before).stream().anyMatch(v -> v.bytes() == anonymous.length), "relayed to the vetted address: " + VISITS);
        }
        before = VISITS.size();
        String client = tunnelClosedAfter(requiringSni, anonymous); // tls.require_sni refuses it
        assertTrue(visitsAfter(before).stream().allMatch(v -> v.bytes() == 0), VISITS.toString());
        JsonNode refused = requiringSni.awaitAuditRecord(r -> client.equals(r.path("client").asText()));
        assertEquals("bad_request", refused.path("reason").asText(), refused.toString());
        assertTrue(refused.toString().contains("front.test"), refused.toString());
    }
}
