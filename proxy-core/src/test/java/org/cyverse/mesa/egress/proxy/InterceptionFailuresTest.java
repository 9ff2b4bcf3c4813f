package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.Python;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Interception when something is wrong: the upstream's certificate, plain http, a missing secret; and auto mode, and curl. */
class InterceptionFailuresTest {

    @TempDir
    Path dir;

    private static HttpClient clientOf(ProxyFixture proxy) throws Exception {
        return proxy.interceptingClient();
    }

    private String allowing(int port, String extra) {
        return "profile: P2\nallow:\n  - host: \"localhost\"\n    ports: [" + port + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n" + extra;
    }

    @Test
    void anUpstreamCertificateFromAnUntrustedCaIs502UpstreamTlsError() throws Exception {
        TestPki stranger = new TestPki("stranger");
        try (HttpsUpstream upstream = new HttpsUpstream(stranger.serverContext("localhost"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start(allowing(upstream.port(), "tls:\n  intercept: all\n"))) {
            HttpResponse<String> response = clientOf(proxy).send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/x")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(502, response.statusCode());
            assertEquals("upstream_tls_error", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertTrue(response.body().contains("tls.upstream_ca"), response.body());
            assertEquals(0, upstream.seen().size());
        }
    }

    @Test
    void anUpstreamCertificateForAnotherNameIs502() throws Exception {
        TestPki pki = new TestPki("upstream");
        Path ca = pki.writeCaPem(dir.resolve("ca.pem"));
        try (HttpsUpstream upstream = new HttpsUpstream(pki.serverContext("elsewhere.example.org"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start(allowing(upstream.port(),
                        "tls:\n  intercept: all\n  upstream_ca: \"" + ca + "\"\n"))) {
            HttpResponse<String> response = clientOf(proxy).send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/x")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(502, response.statusCode());
            assertEquals("upstream_tls_error", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertEquals(0, upstream.seen().size());
        }
    }

    /** A server that insists on h2 (ALPN) answers the proxy's http/1.1 with no_application_protocol: the hint says so, not "certificate". */
    @Test
    void anHttp2OnlyUpstreamIs502WithAHintAboutHttp2NotCertificates() throws Exception {
        TestPki pki = new TestPki("upstream");
        Path ca = pki.writeCaPem(dir.resolve("ca.pem"));
        try (javax.net.ssl.SSLServerSocket server = (javax.net.ssl.SSLServerSocket) pki.serverContext("localhost").getServerSocketFactory()
                .createServerSocket(0, 4, java.net.InetAddress.getByName("127.0.0.1"))) {
            javax.net.ssl.SSLParameters h2Only = server.getSSLParameters();
            h2Only.setApplicationProtocols(new String[] {"h2"});
            server.setSSLParameters(h2Only);
            List<String> serverSaw = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) server.accept()) {
                        socket.setSoTimeout(10_000);
                        socket.startHandshake();
                        serverSaw.add("handshake completed");
                    } catch (java.io.IOException e) {
                        serverSaw.add(String.valueOf(e.getMessage()));
                    }
                }
            });
            acceptor.start();
            try (ProxyFixture proxy = ProxyFixture.start(allowing(server.getLocalPort(),
                    "tls:\n  intercept: all\n  upstream_ca: \"" + ca + "\"\n"))) {
                HttpResponse<String> response = clientOf(proxy).send(
                        HttpRequest.newBuilder(URI.create("https://localhost:" + server.getLocalPort() + "/x")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(502, response.statusCode());
                assertEquals("upstream_tls_error", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
                assertTrue(response.body().contains("HTTP/2 only"), response.body());
                assertTrue(response.body().toLowerCase(java.util.Locale.ROOT).contains("no_application_protocol"), response.body());
                assertTrue(!response.body().contains("tls.upstream_ca"), "not a certificate problem: " + response.body());
            }
            server.close();
            acceptor.join(10_000);
            // The tunnel's own dial and the request's second one (the first link died in its handshake): each refused ALPN.
            assertTrue(serverSaw.stream().filter(e -> !e.equals("Socket closed")).allMatch(e -> e.contains("application layer protocol")),
                    "the upstream refused ALPN: " + serverSaw);
        }
    }

    @Test
    void aSentinelOverPlainHttpIsRefusedAndARequestWithoutOneGoesOutUnchanged() throws Exception {
        List<String> keys = new ArrayList<>();
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
        http.createContext("/", exchange -> {
            keys.add(String.valueOf(exchange.getRequestHeaders().getFirst("x-api-key")));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        http.start();
        Path secrets = Files.writeString(dir.resolve("key"), "sk-real-plaintext-999\n");
        int port = http.getAddress().getPort();
        try (ProxyFixture proxy = ProxyFixture.start(allowing(port, "credentials:\n  - name: api\n    hosts: [\"localhost\"]\n"
                + "    ports: [" + port + "]\n    sentinel: \"sk-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "\"\n"))) {
            HttpClient client = proxy.client();
            HttpResponse<String> refused = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/p"))
                    .header("x-api-key", "sk-sentinel").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, refused.statusCode());
            assertEquals("plaintext_credential", refused.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertTrue(keys.isEmpty());

            HttpResponse<String> plain = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/p")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(204, plain.statusCode());
            assertEquals(List.of("null"), keys, "no credential is ever added over plain http");
        } finally {
            http.stop(0);
        }
    }

    @Test
    void aCredentialThatCannotBeFetchedMakesReadyz503AndItsRequests503() throws Exception {
        TestPki pki = new TestPki("upstream");
        Path ca = pki.writeCaPem(dir.resolve("ca.pem"));
        try (HttpsUpstream upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start(allowing(upstream.port(), "tls:\n  upstream_ca: \"" + ca + "\"\n"
                        + "credentials:\n  - name: missing\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                        + "    header: \"authorization\"\n    secret: \"file:" + dir.resolve("absent.txt") + "\"\n"))) {
            Thread.sleep(300);
            HttpResponse<String> ready = proxy.admin("/readyz");
            assertEquals(503, ready.statusCode());
            assertTrue(ready.body().contains("missing"), ready.body());
            HttpResponse<String> response = clientOf(proxy).send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/x")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, response.statusCode());
            assertEquals("credential_unavailable", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertEquals(0, upstream.seen().size(), "never forwarded without the credential");
        }
    }

    @Test
    void autoInterceptsOnlyCredentialHostsAndCurlAcceptsTheLeaf() throws Exception {
        TestPki pki = new TestPki("upstream");
        Path ca = pki.writeCaPem(dir.resolve("ca.pem"));
        Path secrets = Files.writeString(dir.resolve("key"), "sk-real-curl-777");
        try (HttpsUpstream credentialHost = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
                HttpsUpstream plainHost = new HttpsUpstream(pki.serverContext("127.0.0.1"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start("profile: P2\nallow:\n"
                        + "  - host: \"localhost\"\n    ports: [" + credentialHost.port() + "]\n"
                        + "  - host: \"127.0.0.1\"\n    ports: [" + plainHost.port() + "]\n"
                        + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                        + "tls:\n  upstream_ca: \"" + ca + "\"\n"
                        + "credentials:\n  - name: api\n    hosts: [\"localhost\"]\n    ports: [" + credentialHost.port() + "]\n"
                        + "    header: \"x-api-key\"\n    format: \"{secret}\"\n    secret: \"file:" + secrets + "\"\n")) {
            Path proxyCa = dir.resolve("proxy-ca.pem");
            Files.write(proxyCa, proxy.server().ca().pem());
            for (int i = 0; i < 100 && proxy.admin("/readyz").statusCode() != 200; i++) {
                Thread.sleep(50);
            }
            Process curl = new ProcessBuilder("curl", "-sS", "--max-time", "10", "--cacert", proxyCa.toString(),
                    "-x", "http://127.0.0.1:" + proxy.port(), "https://localhost:" + credentialHost.port() + "/echo").start();
            String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(curl.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(curl.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, curl.exitValue(), err);
            assertTrue(out.startsWith("GET /echo"), out);
            assertEquals("sk-real-curl-777", credentialHost.seen().get(0).header("x-api-key"));

            // The other host is tunnelled: curl sees the upstream's own certificate, which only its own CA verifies.
            Process opaque = new ProcessBuilder("curl", "-sS", "--max-time", "10", "--cacert", ca.toString(),
                    "-x", "http://127.0.0.1:" + proxy.port(), "https://127.0.0.1:" + plainHost.port() + "/echo").start();
            String err2 = new String(opaque.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(opaque.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, opaque.exitValue(), "tunnelled, not intercepted: " + err2);
            assertNull(plainHost.seen().get(0).header("x-api-key"));
            proxy.server().stop(java.time.Duration.ofMillis(200));
            var modes = proxy.awaitAudit(2).stream().map(r -> r.get("mode").asText() + " " + r.get("host").asText()).toList();
            assertTrue(modes.contains("intercept localhost") && modes.contains("tunnel 127.0.0.1"), modes.toString());
        }
    }

    @Test
    void methodRulesOnAnHttpsHostAreEnforcedInsideTheInterceptedConnection() throws Exception {
        TestPki pki = new TestPki("upstream");
        Path ca = pki.writeCaPem(dir.resolve("ca.pem"));
        try (HttpsUpstream upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start("profile: P2\ntls:\n  upstream_ca: \"" + ca + "\"\n"
                        + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n    methods: [GET]\n"
                        + "    paths: [\"/api/**\"]\n"
                        + "network:\n  allow_private: [\"127.0.0.1/32\"]\n")) {
            HttpClient client = clientOf(proxy);
            String base = "https://localhost:" + upstream.port();
            assertEquals(200, client.send(HttpRequest.newBuilder(URI.create(base + "/api/x")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create(base + "/api/x"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, post.statusCode());
            assertEquals("method_not_allowed", post.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            HttpResponse<String> admin = client.send(HttpRequest.newBuilder(URI.create(base + "/api/../admin")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, admin.statusCode());
            assertEquals("path_not_allowed", admin.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertEquals(1, upstream.seen().size(), "only the allowed request reached the upstream");
        }
    }

    /**
     * The "done when": an agent whose environment has HTTPS_PROXY and the proxy's CA in
     * SSL_CERT_FILE (Python, strict X.509 verification) reaches a credential host with the
     * sentinel, and the upstream sees the real key.
     */
    @Test
    void anAgentWithHttpsProxyAndSslCertFileGetsItsSentinelReplaced() throws Exception {
        TestPki pki = new TestPki("upstream");
        Path ca = pki.writeCaPem(dir.resolve("ca.pem"));
        Path secrets = Files.writeString(dir.resolve("key"), "sk-ant-real-for-python-4242");
        try (HttpsUpstream upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start(allowing(upstream.port(), "tls:\n  upstream_ca: \"" + ca + "\"\n"
                        + "credentials:\n  - name: anthropic\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                        + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                        + "    secret: \"file:" + secrets + "\"\n"))) {
            Path proxyCa = Files.write(dir.resolve("proxy-ca.pem"), proxy.server().ca().pem());
            for (int i = 0; i < 100 && proxy.admin("/readyz").statusCode() != 200; i++) {
                Thread.sleep(50);
            }
            String script = String.join("\n",
                    "import ssl, urllib.request",
                    "ctx = ssl.create_default_context()",
                    "ctx.verify_flags |= ssl.VERIFY_X509_STRICT",
                    "req = urllib.request.Request('https://localhost:" + upstream.port() + "/v1/messages', headers={'x-api-key': 'sk-ant-sentinel'})",
                    "print(urllib.request.urlopen(req, context=ctx).read().decode())");
            Python.Result python = Python.through(proxy.port(), proxyCa, script);
            String out = python.out();
            assertEquals(0, python.exit(), python.err());
            assertEquals("sk-ant-real-for-python-4242", upstream.seen().get(0).header("x-api-key"));
            assertTrue(out.toLowerCase(java.util.Locale.ROOT).contains("x-api-key: sk-ant-sentinel"), "the echoed key comes back as its sentinel: " + out);
            assertTrue(!out.contains("sk-ant-real-for-python-4242"), out);
        }
    }
}
