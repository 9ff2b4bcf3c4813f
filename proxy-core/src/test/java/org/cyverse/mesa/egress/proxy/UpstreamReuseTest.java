package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upstream connections are kept and reused (issue 19): every request after a TLS handshake to an
 * upstream would otherwise pay a new one. Counted at the upstream, by the client port each request
 * came on, after the sequence that churned in a report (two requests on one curl connection, then
 * load from several connections), and for plain forwarding.
 */
class UpstreamReuseTest {

    private static final int THREADS = 4;
    private static final int EACH = 50;

    @TempDir
    Path dir;

    /** Sends EACH requests from each of THREADS threads through one client; every answer must be 200. */
    private static void load(HttpClient client, URI uri) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < EACH; i++) {
                        HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
                        assertEquals(200, r.statusCode(), r.body());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** With {@code tls.http2} too: the CONNECT's dial then negotiates, and an HTTP/1.1 upstream must be kept as before. */
    @org.junit.jupiter.params.ParameterizedTest(name = "tls.http2: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void anInterceptedTunnelKeepsOneUpstreamConnectionForAllItsRequests(boolean http2) throws Exception {
        TestPki pki = new TestPki("upstream");
        Path upstreamCa = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Files.writeString(dir.resolve("secret.txt"), "sk-real-upstream-secret-1234\n");
        try (HttpsUpstream upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: localhost\n    ports: [" + upstream.port() + "]\n"
                        + "network:\n  allow_private: [\"127.0.0.1/32\"]\ntls:\n  upstream_ca: \"" + upstreamCa + "\"\n"
                        + (http2 ? "  http2: true\n" : "")
                        + "credentials:\n  - name: up\n    hosts: [localhost]\n    ports: [" + upstream.port() + "]\n"
                        + "    header: x-api-key\n    format: \"{secret}\"\n    secret: \"file:" + dir.resolve("secret.txt") + "\"\n")) {
            Path proxyCa = Files.write(dir.resolve("proxy-ca.pem"), proxy.server().ca().pem());
            String url = "https://localhost:" + upstream.port() + "/small";
            Curl.Result twice = Curl.through(proxy.port(), "-s", "--http1.1", "--cacert", proxyCa.toString(), url, url);
            assertEquals(0, twice.exit(), twice.err());
            assertEquals(1, upstream.connections(), "curl's two requests on one connection: one upstream connection");

            load(proxy.interceptingClient(), URI.create(url));
            List<com.fasterxml.jackson.databind.JsonNode> records = proxy.awaitAudit(2 + THREADS * EACH);
            Set<String> tunnels = records.stream().map(r -> r.path("client").asText()).collect(Collectors.toSet());
            assertEquals(2 + THREADS * EACH, upstream.seen().size());
            assertTrue(tunnels.size() <= 1 + THREADS, "the JDK client keeps its connections: " + tunnels);
            assertEquals(tunnels.size(), upstream.connections(),
                    "one upstream connection per client tunnel, however many requests it carried (" + upstream.seen().size() + " requests)");
            assertTrue(upstream.seen().stream().allMatch(s -> "sk-real-upstream-secret-1234".equals(s.header("x-api-key"))));
        }
    }

    @Test
    void plainForwardingReusesTheUpstreamConnectionBetweenRequests() throws Exception {
        Set<Integer> ports = ConcurrentHashMap.newKeySet();
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.setExecutor(Executors.newFixedThreadPool(THREADS));
        upstream.createContext("/", exchange -> {
            ports.add(exchange.getRemoteAddress().getPort());
            byte[] body = "small".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        upstream.start();
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: 127.0.0.1\n    ports: [" + upstream.getAddress().getPort()
                + "]\nnetwork:\n  allow_private: [\"127.0.0.1/32\"]\n")) {
            load(proxy.client(), URI.create("http://127.0.0.1:" + upstream.getAddress().getPort() + "/small"));
            Set<String> clients = proxy.awaitAudit(THREADS * EACH).stream().map(r -> r.path("client").asText()).collect(Collectors.toSet());
            assertTrue(clients.size() <= THREADS, "the JDK client keeps its connections to the proxy: " + clients);
            assertEquals(clients.size(), ports.size(), "one upstream connection per client connection for " + THREADS * EACH + " requests");
        } finally {
            upstream.stop(0);
            ((ExecutorService) upstream.getExecutor()).shutdownNow();
        }
    }
}
