package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.cyverse.mesa.egress.testkit.H2OnlyUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp2;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/2 toward the upstream ({@code tls.http2}): an upstream that speaks only HTTP/2 (a real
 * Netty server whose ALPN offers {@code h2} alone, answering as a gRPC server does), reached by
 * agents speaking HTTP/2 (gRPC framing, trailers) or HTTP/1.1. Each request is admitted, injected
 * and scanned as any other and travels as a stream of one upstream connection, which the
 * requests of a client connection share.
 */
class Http2UpstreamTest {

    static final String SECRET = "sk-ant-REAL-grpc-0123456789abcdef";
    static final String SENTINEL = "sk-ant-sentinel";

    @TempDir
    static Path dir;

    private static H2OnlyUpstream upstream;
    /** One that allows two streams at once (SETTINGS_MAX_CONCURRENT_STREAMS 2). */
    private static H2OnlyUpstream narrow;
    private static ProxyFixture proxy;
    private static javax.net.ssl.SSLContext trustProxy;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("h2-only");
        upstream = new H2OnlyUpstream(pki.serverContext("localhost"));
        narrow = new H2OnlyUpstream(pki.serverContext("localhost"), 2);
        Path secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "anthropic: \"" + SECRET + "\"\n");
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + pki.writeCaPem(dir.resolve("upstream-ca.pem")) + "\"\n  intercept: all\n  http2: true\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + ", " + narrow.port() + "]\n"
                + "  - host: \"127.0.0.1\"\n    ports: [" + upstream.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n"
                + "  - name: anthropic\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + ", " + narrow.port() + "]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#anthropic\"\n");
        proxy.awaitReady(Duration.ofSeconds(5));
        trustProxy = TestPki.trusting(proxy.server().ca().certificate());
    }

    @AfterAll
    static void stop() throws Exception {
        String audit = proxy.auditText();
        proxy.close();
        upstream.close();
        narrow.close();
        assertFalse(audit.contains(SECRET), "the secret reached the audit log");
    }

    @org.junit.jupiter.api.BeforeEach
    void forget() {
        upstream.forget();
    }

    /** A response as an HTTP/2 client reads it off one stream: its HEADERS blocks in order, its DATA. */
    record Answer(List<Http2Headers> headers, byte[] data, boolean ended, long resetCode, boolean endedOnHeaders) {}

    private static Answer call(RawHttp2 client, int stream) throws Exception {
        List<Http2Headers> headers = new ArrayList<>();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (RawHttp2.Frame f = client.read(); f != null; f = client.read()) {
            if (f.stream() != stream) {
                continue;
            }
            if (f.type() == RawHttp2.HEADERS) {
                headers.add(client.decode(f));
            } else if (f.type() == RawHttp2.DATA) {
                data.write(f.payload());
            } else if (f.type() == RawHttp2.RST_STREAM) {
                return new Answer(headers, data.toByteArray(), false, f.errorCode(), false);
            }
            if ((f.flags() & RawHttp2.END_STREAM) != 0 && (f.type() == RawHttp2.HEADERS || f.type() == RawHttp2.DATA)) {
                return new Answer(headers, data.toByteArray(), true, -1, f.type() == RawHttp2.HEADERS);
            }
        }
        return new Answer(headers, data.toByteArray(), false, -1, false);
    }

    private static RawHttp2 client() throws Exception {
        return RawHttp2.intercepted(proxy.port(), "localhost", upstream.port(), trustProxy, 0);
    }

    @Test
    void aGrpcCallGoesThroughWithTheKeyInjectedAndItsTrailersIntact() throws Exception {
        try (RawHttp2 client = client()) {
            client.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS, 1, client.requestBlock("POST", "/echo.Echo/Say",
                    "content-type", "application/grpc", "te", "trailers", "x-api-key", SENTINEL, "grpc-timeout", "5S"));
            client.frame(RawHttp2.DATA, RawHttp2.END_STREAM, 1, H2OnlyUpstream.grpcFrame("hello")).flush();
            Answer answer = call(client, 1);

            assertTrue(answer.ended(), "the stream ended cleanly");
            assertEquals(2, answer.headers().size(), "a head and trailers: " + answer.headers());
            assertEquals("200", String.valueOf(answer.headers().get(0).status()));
            assertEquals("application/grpc", String.valueOf(answer.headers().get(0).get("content-type")));
            assertEquals("you said: hello", H2OnlyUpstream.grpcMessage(answer.data()));
            Http2Headers trailers = answer.headers().get(1);
            assertEquals("0", String.valueOf(trailers.get("grpc-status")));
            assertEquals("OK", String.valueOf(trailers.get("grpc-message")));
            assertEquals(SENTINEL, String.valueOf(trailers.get("x-echo-key")), "a trailer quoting the key is scrubbed too");
        }
        H2OnlyUpstream.Seen seen = upstream.seen();
        assertEquals("/echo.Echo/Say", String.valueOf(seen.headers().path()));
        assertEquals(SECRET, seen.header("x-api-key"), "the upstream got the real key");
        assertEquals("trailers", seen.header("te"), "gRPC's TE: trailers reached the upstream");
        assertEquals("localhost:" + upstream.port(), String.valueOf(seen.headers().authority()));
        assertEquals("5S", seen.header("grpc-timeout"));
        assertEquals("hello", H2OnlyUpstream.grpcMessage(seen.body()));
        assertTrue(seen.ended(), "the request ended with END_STREAM");
        seen.headers().names().forEach(name -> assertFalse(name.toString().startsWith("x-http2"), "the codec's " + name + " went upstream"));
        JsonNode record = proxy.awaitAuditRecord(r -> "/echo.Echo/Say".equals(r.path("path").asText()));
        assertEquals("h2", record.get("protocol").asText());
        assertEquals("anthropic", record.get("credential").asText());
        assertEquals(200, record.get("status").asInt());
    }

    /**
     * A gRPC message is length-prefixed (and protobuf inside it too): replacing a quoted key with
     * its shorter sentinel would break the framing. The answer is cut instead, the key never sent.
     */
    @Test
    void aGrpcAnswerThatQuotesTheKeyIsCutNotCorrupted() throws Exception {
        try (RawHttp2 client = client()) {
            client.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS, 1, client.requestBlock("POST", "/echo.Echo/Quote",
                    "content-type", "application/grpc", "te", "trailers", "x-api-key", SENTINEL));
            client.frame(RawHttp2.DATA, RawHttp2.END_STREAM, 1, H2OnlyUpstream.grpcFrame("tell me")).flush();
            Answer answer = call(client, 1);

            assertFalse(answer.ended(), "the stream did not end as if complete");
            assertEquals(8, answer.resetCode(), "RST_STREAM CANCEL");
            assertEquals(0, answer.data().length, "no message, neither with the key nor with a broken length");
        }
        JsonNode record = proxy.awaitAuditRecord(r -> "/echo.Echo/Quote".equals(r.path("path").asText()));
        assertEquals("upstream_unreachable", record.get("reason").asText());
        assertTrue(record.toString().contains("length-prefixed"), record.toString());
    }

    @Test
    void aTrailersOnlyGrpcErrorReachesTheClient() throws Exception {
        try (RawHttp2 client = client()) {
            client.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS, 1, client.requestBlock("POST", "/echo.Echo/Missing",
                    "content-type", "application/grpc", "te", "trailers"));
            client.frame(RawHttp2.DATA, RawHttp2.END_STREAM, 1, H2OnlyUpstream.grpcFrame("anyone?")).flush();
            Answer answer = call(client, 1);

            assertTrue(answer.endedOnHeaders(), "one HEADERS frame that ends the stream, as gRPC clients read a trailers-only answer: "
                    + answer);
            assertEquals(1, answer.headers().size());
            Http2Headers head = answer.headers().get(0);
            assertEquals("200", String.valueOf(head.status()));
            assertEquals("12", String.valueOf(head.get("grpc-status")), "the status gRPC reads from a trailers-only answer");
            assertEquals("no such method", String.valueOf(head.get("grpc-message")));
            assertEquals(0, answer.data().length);
        }
    }

    @Test
    void anHttp11ClientReachesAnUpstreamThatSpeaksOnlyHttp2() throws Exception {
        HttpClient http1 = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(trustProxy).version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> response = http1.send(HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/plain"))
                .header("x-api-key", SENTINEL).build(), HttpResponse.BodyHandlers.ofString());

        assertEquals(200, response.statusCode());
        assertEquals(HttpClient.Version.HTTP_1_1, response.version());
        assertEquals("plain over h2; key " + SENTINEL, response.body());
        assertEquals(SECRET, upstream.seen().header("x-api-key"));
    }

    @Test
    void theStreamsOfOneClientConnectionShareOneUpstreamConnection() throws Exception {
        HttpClient h2 = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(trustProxy).version(HttpClient.Version.HTTP_2).build();
        URI slow = URI.create("https://localhost:" + upstream.port() + "/slow");
        assertEquals(200, h2.send(HttpRequest.newBuilder(slow).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        int before = upstream.connections();

        List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            burst.add(h2.sendAsync(HttpRequest.newBuilder(slow).header("x-api-key", SENTINEL).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> r : burst) {
            HttpResponse<String> response = r.get();
            assertEquals(200, response.statusCode());
            assertEquals("plain over h2; key " + SENTINEL, response.body());
        }
        for (int i = 0; i < 21; i++) {
            assertNotNull(upstream.seen());
        }
        assertEquals(before, upstream.connections(), "20 overlapping requests (300 ms each) needed no new upstream connection");
    }

    @Test
    void anUpstreamThatResetsTheStreamBeforeAnsweringIs502() throws Exception {
        try (RawHttp2 client = client()) {
            client.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, 1, client.requestBlock("GET", "/reset")).flush();
            Answer answer = call(client, 1);
            assertEquals("502", String.valueOf(answer.headers().get(0).status()));
            assertTrue(new String(answer.data(), java.nio.charset.StandardCharsets.UTF_8).contains("upstream_unreachable"));

            // The connection and the upstream's carry on: the next stream is answered.
            client.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, 3, client.requestBlock("GET", "/plain")).flush();
            Answer next = call(client, 3);
            assertEquals("200", String.valueOf(next.headers().get(0).status()));
        }
        JsonNode record = proxy.awaitAuditRecord(r -> "/reset".equals(r.path("path").asText()));
        assertEquals("upstream_unreachable", record.get("reason").asText());
    }

    @Test
    void aLeakInAStreamedBodyResetsTheUpstreamStreamSoTheRequestNeverCompletes() throws Exception {
        try (RawHttp2 client = client()) {
            client.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS, 1, client.requestBlock("POST", "/echo.Echo/Say",
                    "content-type", "application/grpc", "te", "trailers"));
            byte[] filler = new byte[16_000];
            java.util.Arrays.fill(filler, (byte) 'a');
            for (int i = 0; i < 80; i++) { // 1.28 MB, past limits.scan_hold_bytes: streamed upstream as it is scanned
                client.dataWithinWindows(0, 1, filler);
            }
            client.dataWithinWindows(RawHttp2.END_STREAM, 1, ("then the key " + SECRET).getBytes()).flush();
            Answer answer = call(client, 1);
            assertEquals("403", String.valueOf(answer.headers().get(0).status()), "refused: " + answer);
        }
        H2OnlyUpstream.Seen seen = upstream.seen();
        assertNotNull(seen, "the start of the body went upstream");
        assertFalse(seen.ended(), "the upstream never saw the request end");
        assertFalse(new String(seen.body(), java.nio.charset.StandardCharsets.ISO_8859_1).contains(SECRET));
        JsonNode record = proxy.awaitAuditRecord(r -> "secret_leak".equals(r.path("reason").asText()));
        assertEquals("body", record.get("place").asText());
        assertNull(upstream.seen(), "nothing else reached the upstream");
    }

    @Test
    void anAnswerWithoutTheBodyItsLengthDeclaresIsCutNotWaitedFor() throws Exception {
        HttpClient http1 = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(trustProxy).version(HttpClient.Version.HTTP_1_1).build();
        CompletableFuture<HttpResponse<String>> response = http1.sendAsync(HttpRequest.newBuilder(
                URI.create("https://localhost:" + upstream.port() + "/short")).build(), HttpResponse.BodyHandlers.ofString());
        java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> response.get(10, java.util.concurrent.TimeUnit.SECONDS),
                "the client got an answer that claims 100 bytes it never had, or waited");
        assertTrue(failed.getCause() instanceof java.io.IOException, String.valueOf(failed.getCause()));
        JsonNode record = proxy.awaitAuditRecord(r -> "/short".equals(r.path("path").asText()));
        assertEquals("upstream_unreachable", record.get("reason").asText());
    }

    /** RFC 9113 section 8.1: a server may answer whole before the body ended and reset the rest (NO_ERROR); the answer stands. */
    @Test
    void anUpstreamThatAnswersBeforeTheBodyEndsIsHeard() throws Exception {
        try (RawHttp2 client = client()) {
            client.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS, 1, client.requestBlock("POST", "/early", "content-type", "text/plain"));
            byte[] filler = new byte[16_000];
            java.util.Arrays.fill(filler, (byte) 'e');
            for (int i = 0; i < 80; i++) { // past the hold bound: the head goes upstream at 1 MiB and is answered at once
                client.dataWithinWindows(0, 1, filler);
            }
            client.dataWithinWindows(RawHttp2.END_STREAM, 1, new byte[0]).flush();
            Answer answer = call(client, 1);
            assertEquals("413", String.valueOf(answer.headers().get(0).status()), "the upstream's answer: " + answer);
            assertEquals("too large, stop", new String(answer.data(), java.nio.charset.StandardCharsets.UTF_8), "answer: " + answer);
        }
        JsonNode record = proxy.awaitAuditRecord(r -> "/early".equals(r.path("path").asText()));
        assertEquals(413, record.get("status").asInt());
    }

    @Test
    void streamsPastTheUpstreamsConcurrencyLimitGoOnAnotherConnection() throws Exception {
        HttpClient h2 = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(trustProxy).version(HttpClient.Version.HTTP_2).build();
        URI slow = URI.create("https://localhost:" + narrow.port() + "/slow");
        List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            burst.add(h2.sendAsync(HttpRequest.newBuilder(slow).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> r : burst) {
            assertEquals(200, r.get().statusCode(), "no request refused for the upstream's limit of 2 streams");
        }
        assertTrue(narrow.connections() >= 3, "6 overlapping requests, 2 streams per connection: " + narrow.connections() + " connections");
    }

    /**
     * With {@code tls.http2} the CONNECT's answer waits for the upstream's handshake (ALPN must be
     * known before the first request), so a certificate that does not verify is the CONNECT's own
     * refusal: here the upstream's certificate names {@code localhost}, not {@code 127.0.0.1}.
     */
    @Test
    void anUpstreamCertificateThatDoesNotVerifyIsTheConnectsOwnAnswer() throws Exception {
        try (java.net.Socket raw = new java.net.Socket("127.0.0.1", proxy.port())) {
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(("CONNECT 127.0.0.1:" + upstream.port() + " HTTP/1.1\r\nHost: 127.0.0.1:" + upstream.port()
                    + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String head = org.cyverse.mesa.egress.testkit.ConnectTunnel.readHead(raw.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 502"), head);
            assertTrue(head.toLowerCase().contains("upstream_tls_error"), head);
        }
        JsonNode record = proxy.awaitAuditRecord(r -> "CONNECT".equals(r.path("method").asText()) && "127.0.0.1".equals(r.path("host").asText()));
        assertEquals("upstream_tls_error", record.get("reason").asText());
        assertNull(upstream.seen(), "no request reached the upstream");
    }
}
