package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/2 between the agent and the proxy on an intercepted tunnel (ALPN {@code h2}), HTTP/1.1 on
 * to an upstream that speaks only that (the JDK's HTTPS server): each stream is admitted,
 * injected, scanned and audited as one HTTP/1.1 request is, the answers go back on their streams,
 * and the streams of one connection share a few upstream connections.
 */
class Http2InterceptionTest {

    static final String SECRET = "sk-ant-REAL-h2-0123456789abcdef";

    @TempDir
    static Path dir;

    private static HttpsUpstream upstream;
    private static ProxyFixture proxy;
    private static HttpClient h2;
    private static Path proxyCa;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("h2-upstream");
        upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Path secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "anthropic: \"" + SECRET + "\"\n");
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n  http2: true\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n    paths: [\"/echo/**\", \"/big\", \"/reflect\", \"/events\"]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n"
                + "  - name: anthropic\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#anthropic\"\n");
        proxy.awaitReady(Duration.ofSeconds(5));
        h2 = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(TestPki.trusting(proxy.server().ca().certificate())).version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(5)).build();
        proxyCa = dir.resolve("proxy-ca.pem");
        Files.writeString(proxyCa, proxy.admin("/ca.pem").body());
    }

    @AfterAll
    static void stop() throws Exception {
        String audit = proxy.auditText();
        proxy.close();
        upstream.close();
        assertFalse(audit.contains(SECRET), "the secret reached the audit log");
    }

    private static String url(String path) {
        return "https://localhost:" + upstream.port() + path;
    }

    @Test
    void aStreamIsAdmittedAndInjectedAsARequest() throws Exception {
        HttpResponse<String> response = h2.send(HttpRequest.newBuilder(URI.create(url("/echo/one?q=1"))).header("x-api-key", "sk-ant-sentinel")
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals(HttpClient.Version.HTTP_2, response.version(), "the client spoke HTTP/2 with the proxy");
        HttpsUpstream.Seen seen = upstream.seen().stream().filter(s -> s.uri().equals("/echo/one?q=1")).findFirst().orElseThrow();
        assertEquals(SECRET, seen.header("x-api-key"));
        assertEquals("localhost:" + upstream.port(), seen.header("host"));
        for (String name : seen.headers().keySet()) {
            assertFalse(name.toLowerCase().startsWith("x-http2"), "the codec's field " + name + " went upstream");
        }
        assertTrue(response.body().startsWith("GET /echo/one?q=1"), response.body());
        JsonNode record = proxy.awaitAuditRecord(r -> "/echo/one".equals(r.path("path").asText()));
        assertEquals("intercept", record.get("mode").asText());
        assertEquals("anthropic", record.get("credential").asText());
        assertEquals(200, record.get("status").asInt());
        assertEquals("h2", record.get("protocol").asText());
    }

    /**
     * Server-sent events stay a stream through interception, on HTTP/2 and HTTP/1.1: the first
     * event reaches the client while the upstream has not yet written the second (it waits for
     * the test), and the real key it quotes arrives as the sentinel. The time to the first event
     * is printed (measured here for the record, not asserted: the machines are shared).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = HttpClient.Version.class)
    void serverSentEventsStreamEventByEvent(HttpClient.Version version) throws Exception {
        HttpClient client = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(TestPki.trusting(proxy.server().ca().certificate())).version(version).build();
        long start = System.nanoTime();
        HttpResponse<java.io.InputStream> response = client.send(HttpRequest.newBuilder(URI.create(url("/events")))
                .header("x-api-key", "sk-ant-sentinel").build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(version, response.version());
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(response.body(), java.nio.charset.StandardCharsets.UTF_8))) {
            assertEquals("data: first sk-ant-sentinel", lines.readLine(), "the first event, its echoed key scrubbed");
            double firstMs = (System.nanoTime() - start) / 1e6;
            System.out.printf("time to first event through interception, %s: %.1f ms%n", version, firstMs);
            upstream.letOneGo();
            assertEquals("", lines.readLine());
            assertEquals("data: second", lines.readLine());
        }
    }

    @Test
    void aSlowClientDownloadingOverHttp2KeepsTheProxysBuffersBounded() throws Exception {
        upstream.bigSize(64L << 20);
        try (org.cyverse.mesa.egress.testkit.MemoryWatch memory = new org.cyverse.mesa.egress.testkit.MemoryWatch()) {
            HttpResponse<java.io.InputStream> response = h2.send(HttpRequest.newBuilder(URI.create(url("/big"))).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            long total = 0;
            byte[] buf = new byte[16 * 1024];
            try (java.io.InputStream in = response.body()) {
                int n;
                int chunks = 0;
                while ((n = in.read(buf)) > 0) {
                    total += n;
                    if (++chunks % 256 == 0) {
                        Thread.sleep(2); // a slow reader
                    }
                }
            }
            assertEquals(64L << 20, total);
            assertTrue(memory.peak() < 16L << 20, "proxy buffers peaked at " + memory.peak() + " bytes");
        }
    }

    @Test
    void aSecretInAStreamsBodyIsRefusedOnItsStream() throws Exception {
        HttpResponse<String> response = h2.send(HttpRequest.newBuilder(URI.create(url("/echo/leak")))
                .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"" + SECRET + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, response.statusCode());
        assertEquals("secret_leak", response.headers().firstValue("x-mesa-egress-reason").orElse(null));
        assertTrue(response.body().contains("\"reason\":\"secret_leak\"") || response.body().contains("\"reason\": \"secret_leak\""), response.body());
        assertTrue(upstream.seen().stream().noneMatch(s -> s.uri().equals("/echo/leak")), "the body never left");
        // The connection goes on: the next stream is served.
        assertEquals(200, h2.send(HttpRequest.newBuilder(URI.create(url("/echo/after-leak"))).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode());
    }

    @Test
    void aPathTheRuleRefusesIsAnsweredOnItsStream() throws Exception {
        HttpResponse<String> response = h2.send(HttpRequest.newBuilder(URI.create(url("/private"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, response.statusCode());
        assertEquals("path_not_allowed", response.headers().firstValue("x-mesa-egress-reason").orElse(null));
        assertEquals(HttpClient.Version.HTTP_2, response.version());
    }

    @Test
    void concurrentStreamsAllArriveAndShareUpstreamConnections() throws Exception {
        HttpClient fresh = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(TestPki.trusting(proxy.server().ca().certificate())).version(HttpClient.Version.HTTP_2).build();
        // One request first: the JDK opens a connection per request until it has one to multiplex on.
        assertEquals(200, fresh.send(HttpRequest.newBuilder(URI.create(url("/echo/first"))).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode());
        long before = upstream.connections();
        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            inFlight.add(fresh.sendAsync(HttpRequest.newBuilder(URI.create(url("/echo/many/" + i))).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> r = inFlight.get(i).get();
            assertEquals(200, r.statusCode());
            assertTrue(r.body().startsWith("GET /echo/many/" + i + "\n"), "stream " + i + " got another's answer: " + r.body());
        }
        long burst = upstream.connections() - before;
        for (int i = 0; i < 20; i++) {
            assertEquals(200, fresh.send(HttpRequest.newBuilder(URI.create(url("/echo/seq/" + i))).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode());
        }
        long sequential = upstream.connections() - before - burst;
        assertTrue(burst <= 30, burst + " upstream connections for 30 streams");
        assertEquals(0, sequential, "20 requests one after another reuse the connections the burst left idle");
        List<CompletableFuture<HttpResponse<String>>> again = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            again.add(fresh.sendAsync(HttpRequest.newBuilder(URI.create(url("/echo/again/" + i))).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> r : again) {
            assertEquals(200, r.get().statusCode());
        }
        // At most a few new: a link is parked when the proxy's write of the answer completes, which
        // the client can see (and follow with its next request) a moment before. With too small a
        // pool (8 idle) the second burst needed 22.
        long second = upstream.connections() - before - burst;
        assertTrue(second <= 3, "a second burst of 30 streams finds the first burst's connections idle, yet dialed " + second);
        List<String> clients = proxy.auditRecords().stream().filter(r -> r.path("path").asText().startsWith("/echo/many/"))
                .map(r -> r.path("client").asText()).distinct().toList();
        assertEquals(1, clients.size(), "the burst's streams shared one client connection: " + clients);
    }

    @Test
    void aLargeResponseStreamsBackOnItsStream() throws Exception {
        upstream.bigSize(8L << 20);
        HttpResponse<byte[]> response = h2.send(HttpRequest.newBuilder(URI.create(url("/big"))).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode());
        assertEquals(8L << 20, response.body().length);
    }

    @Test
    void curlSpeaksHttp2ThroughInterception() throws Exception {
        Curl.Result result = Curl.through(proxy.port(), "--http2", "--cacert", proxyCa.toString(), "-H", "x-api-key: sk-ant-sentinel",
                "-w", "\n%{http_version}", url("/echo/curl"));
        assertEquals(0, result.exit(), result.err());
        assertTrue(result.out().endsWith("\n2"), result.out());
        assertTrue(result.out().contains("x-api-key: " + "sk-ant-sentinel") || !result.out().contains(SECRET),
                "the echo of the key comes back scrubbed: " + result.out());
        assertFalse(result.out().contains(SECRET));
    }

    /**
     * A body with a Content-Length whose bytes all came before its end (END_STREAM in a frame of
     * its own, as HTTP/2 allows): the HTTP/1.1 upstream must not have the whole request until the
     * proxy's scan has seen that end, or a finding made only there could no longer cut it. Past
     * {@code limits.scan_hold_bytes} the body streams upstream; its last byte waits.
     */
    @Test
    void aBodyWhoseEndComesInAFrameOfItsOwnIsNotCompleteUpstreamBeforeThatEnd() throws Exception {
        byte[] chunk = new byte[16_000];
        java.util.Arrays.fill(chunk, (byte) 'b');
        int frames = 70; // 1.12 MB, past the 1 MiB hold bound
        try (org.cyverse.mesa.egress.testkit.RawHttp2 client = org.cyverse.mesa.egress.testkit.RawHttp2.intercepted(proxy.port(),
                "localhost", upstream.port(), TestPki.trusting(proxy.server().ca().certificate()), 0)) {
            client.frame(org.cyverse.mesa.egress.testkit.RawHttp2.HEADERS, org.cyverse.mesa.egress.testkit.RawHttp2.END_HEADERS, 1,
                    client.requestBlock("POST", "/echo/length-end", "content-length", String.valueOf(frames * chunk.length)));
            for (int i = 0; i < frames; i++) {
                client.dataWithinWindows(0, 1, chunk);
            }
            client.flush();
            Thread.sleep(700);
            assertTrue(upstream.seen().stream().noneMatch(s -> s.uri().equals("/echo/length-end")),
                    "the upstream had the whole request before its end was scanned");

            client.dataWithinWindows(org.cyverse.mesa.egress.testkit.RawHttp2.END_STREAM, 1, new byte[0]).flush();
            org.cyverse.mesa.egress.testkit.RawHttp2.Frame head = client.readUntil(org.cyverse.mesa.egress.testkit.RawHttp2.HEADERS, 1);
            assertEquals("200", String.valueOf(client.decode(head).status()));
        }
        HttpsUpstream.Seen seen = upstream.seen().stream().filter(s -> s.uri().equals("/echo/length-end")).findFirst().orElseThrow();
        assertEquals((long) frames * chunk.length, seen.bodyBytes(), "then the whole body, its last byte included");
    }
}
