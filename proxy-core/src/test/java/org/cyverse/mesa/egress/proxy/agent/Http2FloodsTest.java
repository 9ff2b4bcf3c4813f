package org.cyverse.mesa.egress.proxy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.MemoryWatch;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testkit.RawHttp2;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP/2 attacks of the last years against the proxy's intercepted side, each answered as
 * RFC 9113 says (GOAWAY or RST_STREAM with the error a server owes), bounded in memory, and
 * without keeping another client waiting meanwhile: the 2023 rapid reset (CVE-2023-44487),
 * the 2024 CONTINUATION flood, a SETTINGS and PING flood left unread, an HPACK bomb, and more
 * streams than SETTINGS_MAX_CONCURRENT_STREAMS. Also: HTTP/2 with prior knowledge on the plain
 * proxy port is refused.
 */
class Http2FloodsTest {

    private static final long ENHANCE_YOUR_CALM = 0xb, REFUSED_STREAM = 0x7, PROTOCOL_ERROR = 0x1;
    private static final String CALM = "mesa_egress_http2_connection_errors_total{error=\"ENHANCE_YOUR_CALM\"}";
    /** Netty's buffers the proxy may use during one attack. */
    private static final long MEMORY_BOUND = 32L << 20;

    @TempDir
    static Path dir;

    private static HttpsUpstream upstream;
    private static ProxyFixture proxy;
    private static SSLContext agentTls;
    private static HttpClient other;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("h2-floods");
        upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + pki.writeCaPem(dir.resolve("ca.pem")) + "\"\n  intercept: all\n  http2: true\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n");
        proxy.awaitReady(Duration.ofSeconds(5));
        agentTls = TestPki.trusting(proxy.server().ca().certificate());
        other = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port()))).sslContext(agentTls)
                .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        upstream.close();
    }

    private static RawHttp2 attacker(int receiveBuffer) throws IOException {
        return RawHttp2.intercepted(proxy.port(), "localhost", upstream.port(), agentTls, receiveBuffer);
    }

    /** Waits (at most 20 s) until the proxy has counted {@code count} connections ended with GOAWAY {@code error}. */
    private static void awaitGoAwayCounted(String error, double count) throws Exception {
        String sample = "mesa_egress_http2_connection_errors_total{error=\"" + error + "\"}";
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (metricOrZero(sample) < count && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(metricOrZero(sample) >= count, sample + " stayed at " + metricOrZero(sample));
        com.fasterxml.jackson.databind.JsonNode record = proxy.awaitAuditRecord(r -> ("http2: " + error).equals(r.path("rule").asText()));
        assertEquals("deny", record.get("decision").asText());
        assertEquals("bad_request", record.get("reason").asText());
        assertEquals("intercept", record.get("mode").asText());
        assertEquals("h2", record.get("protocol").asText());
        assertEquals("localhost", record.get("host").asText());
    }

    /**
     * The sample's value, 0 while it does not exist yet; asked again while the admin port is slow
     * to answer (a flood still being worked off), for at most 20 s.
     */
    private static double metricOrZero(String sample) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                return proxy.metric(sample);
            } catch (AssertionError none) {
                return 0;
            } catch (java.net.http.HttpTimeoutException slow) {
                if (System.nanoTime() > deadline) {
                    throw slow;
                }
            }
        }
    }

    /** Another agent's request, answered while the attack runs. */
    private static void anotherClientIsServed(String name) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> r = other.send(HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/echo/" + name))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 5_000, "another client waited " + millis + " ms");
    }

    @Test
    void rapidResetIsAnsweredWithGoAwayEnhanceYourCalm() throws Exception {
        double before = metricOrZero(CALM);
        try (MemoryWatch memory = new MemoryWatch(); RawHttp2 h2 = attacker(0)) {
            RawHttp2.Frame goAway = null;
            for (int i = 0; i < 1000 && goAway == null; i++) {
                int stream = 2 * i + 1;
                try {
                    h2.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, stream, h2.requestBlock("GET", "/echo/reset/" + i));
                    h2.frame(RawHttp2.RST_STREAM, 0, stream, new byte[] {0, 0, 0, 8}).flush(); // CANCEL
                } catch (IOException closed) {
                    break;
                }
                if (i == 100) {
                    anotherClientIsServed("during-rapid-reset");
                }
            }
            goAway = h2.readUntil(RawHttp2.GOAWAY, 0);
            assertNotNull(goAway, "the connection ended without a GOAWAY");
            assertEquals(ENHANCE_YOUR_CALM, goAway.errorCode(), goAway.debug());
            assertTrue(memory.peak() < MEMORY_BOUND, "peak " + memory.peak());
        }
        awaitGoAwayCounted("ENHANCE_YOUR_CALM", before + 1);
        anotherClientIsServed("after-rapid-reset");
    }

    @Test
    void aContinuationFloodEndsInGoAway() throws Exception {
        double before = metricOrZero("mesa_egress_http2_connection_errors_total{error=\"PROTOCOL_ERROR\"}");
        try (MemoryWatch memory = new MemoryWatch(); RawHttp2 h2 = attacker(0)) {
            byte[] block = h2.requestBlock("GET", "/echo/continuation");
            h2.frame(RawHttp2.HEADERS, 0, 1, block); // no END_HEADERS: CONTINUATION frames must follow
            byte[] filler = new byte[16_384];
            Arrays.fill(filler, (byte) 0x40); // literal fields with incremental indexing, never finished
            try {
                for (int i = 0; i < 200; i++) {
                    h2.frame(RawHttp2.CONTINUATION, 0, 1, filler).flush();
                    if (i == 2) {
                        anotherClientIsServed("during-continuation");
                    }
                }
            } catch (IOException closed) {
                // the proxy closed first, as it should
            }
            RawHttp2.Frame goAway = h2.readUntil(RawHttp2.GOAWAY, 0);
            assertNotNull(goAway, "the connection ended without a GOAWAY");
            assertEquals(PROTOCOL_ERROR, goAway.errorCode(), goAway.debug());
            assertTrue(goAway.debug().contains("Header size exceeded"), goAway.debug());
            assertTrue(memory.peak() < MEMORY_BOUND, "peak " + memory.peak());
        }
        awaitGoAwayCounted("PROTOCOL_ERROR", before + 1);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {RawHttp2.PING, RawHttp2.SETTINGS})
    void aControlFrameFloodLeftUnreadIsCutOff(int type) throws Exception {
        double before = metricOrZero(CALM);
        // The attacker never reads: the ACKs the proxy owes (PING, SETTINGS) pile up behind a full socket.
        // Netty's encoder allows 10000 queued control frames, then sends GOAWAY ENHANCE_YOUR_CALM
        // and closes; the GOAWAY waits behind the unread ACKs, so what the attacker sees is the
        // connection cut.
        try (MemoryWatch memory = new MemoryWatch(); RawHttp2 h2 = attacker(4096)) {
            byte[] payload = new byte[type == RawHttp2.PING ? 8 : 0]; // each owes an ACK: PING 17 bytes, SETTINGS 9
            int count = type == RawHttp2.PING ? 400_000 : 700_000;
            int sent = 0;
            try {
                for (; sent < count; sent++) {
                    h2.frame(type, 0, 0, payload);
                    if (sent % 1000 == 999) {
                        h2.flush();
                    }
                    if (sent == 20_000) {
                        anotherClientIsServed("during-control-flood");
                    }
                }
                h2.flush();
            } catch (IOException closed) {
                // cut off, as it should be
            }
            // 400000 PING ACKs are 6.8 MB, 700000 SETTINGS ACKs 6.3 MB: past what the kernel buffers
            // (4 MiB here), the rest queues in the proxy until Netty's bound of 10000 control frames
            // cuts the connection.
            awaitGoAwayCounted("ENHANCE_YOUR_CALM", before + 1);
            assertTrue(memory.peak() < MEMORY_BOUND, "peak " + memory.peak());
        }
        anotherClientIsServed("after-control-flood");
    }

    @Test
    void anHpackBombIsRefusedBeforeItIsDecodedWhole() throws Exception {
        try (MemoryWatch memory = new MemoryWatch(); RawHttp2 h2 = attacker(0)) {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            block.write(h2.requestBlock("GET", "/echo/bomb"));
            // One 4000-byte field into the dynamic table (literal with incremental indexing,
            // RFC 7541 section 6.2.1), then 2000 one-byte references to it: 8 MB decoded from 6 KB.
            block.write(0x40);
            block.write(6);
            block.write("x-bomb".getBytes(StandardCharsets.US_ASCII));
            block.write(0x7f); // length 4000 = 127 + 3873: 7-bit prefix full, then 3873 in 7-bit groups
            block.write((3873 & 0x7f) | 0x80);
            block.write(3873 >> 7);
            block.write("b".repeat(4000).getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 2000; i++) {
                block.write(0x80 | 62); // indexed: the first dynamic entry
            }
            byte[] bytes = block.toByteArray();
            for (int at = 0; at < bytes.length; at += 16_384) {
                byte[] part = Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + 16_384));
                boolean last = at + 16_384 >= bytes.length;
                h2.frame(at == 0 ? RawHttp2.HEADERS : RawHttp2.CONTINUATION, (last ? RawHttp2.END_HEADERS : 0) | (at == 0 ? RawHttp2.END_STREAM : 0),
                        1, part);
            }
            h2.flush();
            anotherClientIsServed("during-hpack-bomb");
            RawHttp2.Frame answer = h2.read();
            while (answer != null && answer.type() != RawHttp2.GOAWAY && answer.type() != RawHttp2.RST_STREAM
                    && !(answer.type() == RawHttp2.HEADERS && answer.stream() == 1)) {
                answer = h2.read();
            }
            assertNotNull(answer, "no answer to the bomb");
            // Netty stops decoding at the list size limit and answers 431 on the stream (RFC 6585
            // section 5), the connection staying usable.
            assertEquals(RawHttp2.HEADERS, answer.type(), "answered " + answer.type());
            assertEquals("431", String.valueOf(h2.decode(answer).status()));
            assertTrue(upstream.seen().stream().noneMatch(s -> s.uri().startsWith("/echo/bomb")), "the bombed request went upstream");
            assertTrue(memory.peak() < MEMORY_BOUND, "peak " + memory.peak());
        }
    }

    @Test
    void aStreamPastTheConcurrencyLimitIsRefused() throws Exception {
        try (RawHttp2 h2 = attacker(0)) {
            // 101 uploads that never end: the first 100 are open streams, the 101st one too many.
            for (int i = 0; i <= AgentPipelines.MAX_CONCURRENT_STREAMS; i++) {
                h2.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS, 2 * i + 1,
                        h2.requestBlock("POST", "/echo/open/" + i, "content-type", "text/plain"));
            }
            h2.flush();
            anotherClientIsServed("during-stream-limit");
            RawHttp2.Frame reset = h2.readUntil(RawHttp2.RST_STREAM, 2 * AgentPipelines.MAX_CONCURRENT_STREAMS + 1);
            assertNotNull(reset, "the 101st stream was not refused");
            assertEquals(REFUSED_STREAM, reset.errorCode());
        }
    }

    /** What HPACK carries but an HTTP/1.1 request line may not: refused on the stream, as the HTTP/1.1 head scanner refuses it. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"/echo/a\tb", "/echo/caf\u00e9", "GET /x"})
    void aPathOrMethodAnHttp11LineCouldNotCarryIsRefused(String shape) throws Exception {
        boolean method = shape.startsWith("GET ");
        try (RawHttp2 h2 = attacker(0)) {
            h2.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, 1,
                    method ? h2.requestBlock(shape, "/echo/method") : h2.requestBlock("GET", shape)).flush();
            RawHttp2.Frame answer = h2.readUntil(RawHttp2.HEADERS, 1);
            assertNotNull(answer, "no answer on the stream");
            assertEquals("400", String.valueOf(h2.decode(answer).status()));
            anotherClientIsServed("after-bad-line");
        }
        assertTrue(upstream.seen().stream().noneMatch(s -> s.uri().contains("a\tb") || s.uri().contains("caf") || s.uri().equals("/echo/method")),
                "the request went upstream");
    }

    @Test
    void http2WithPriorKnowledgeOnThePlainPortIsRefused() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").read();
            assertEquals(400, response.status());
            assertEquals("bad_request", response.header("X-Mesa-Egress-Reason"));
            assertTrue(response.body().contains("HTTP/2 with prior knowledge"), response.body());
        }
    }
}
