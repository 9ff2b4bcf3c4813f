package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import javax.net.ssl.SSLSocket;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.MemoryWatch;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS interception with credential injection, end to end: the JDK client trusts only the proxy's
 * CA (hostname verification on); the upstream is a real HTTPS server with its own test CA, trusted
 * by the proxy through tls.upstream_ca. Every secret stays out of the log and the audit.
 */
class InterceptionTest {

    static final String ANTHROPIC = "sk-ant-REAL-0123456789abcdef";
    static final String GITHUB = "ghs_REALTOKEN987654321zyx";
    static final String BODY_SECRET = "body-real-secret-5555";

    @TempDir
    static Path dir;

    private static TestPki pki;
    private static HttpsUpstream upstream;
    private static HttpsUpstream byIp;
    static ProxyFixture proxy;
    private static HttpClient client;
    private static final StringBuilder log = new StringBuilder();
    private static final Handler capture = new Handler() {
        private final SimpleFormatter format = new SimpleFormatter();

        @Override
        public synchronized void publish(LogRecord record) {
            log.append(format.format(record));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeAll
    static void start() throws Exception {
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        capture.setLevel(Level.ALL);
        Logger.getLogger("org.cyverse").setLevel(Level.FINE);
        pki = new TestPki("upstream");
        upstream = new HttpsUpstream(pki.serverContext("localhost", "127.0.0.1"), "127.0.0.1");
        byIp = new HttpsUpstream(pki.serverContext("localhost", "127.0.0.1"), "127.0.0.1");
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Path secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "anthropic: \"" + ANTHROPIC + "\"\ngithub: \"" + GITHUB + "\"\nbody: \"" + BODY_SECRET + "\"\n");
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n"
                + "  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n"
                + "  - host: \"127.0.0.1\"\n    ports: [" + byIp.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n"
                + "  - name: anthropic\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                + "    paths: [\"/echo\", \"/echo/**\", \"/reflect\", \"/big\"]\n"
                + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#anthropic\"\n"
                + "  - name: github\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                + "    paths: [\"/git/**\"]\n    sentinel: \"proxy-injected\"\n"
                + "    secret: \"file:" + secrets + "#github\"\n"
                + "  - name: jsonkey\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                + "    paths: [\"/json/**\"]\n    sentinel: \"body-sentinel\"\n    body_substitution: true\n"
                + "    secret: \"file:" + secrets + "#body\"\n");
        proxy.awaitReady(java.time.Duration.ofSeconds(5));
        client = proxy.interceptingClient();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            proxy.close();
            String everything = log + proxy.auditText();
            for (String secret : List.of(ANTHROPIC, GITHUB, BODY_SECRET)) {
                assertFalse(everything.contains(secret), "a secret value reached the log or the audit");
                assertFalse(everything.contains(Base64.getEncoder().encodeToString(("x-access-token:" + GITHUB).getBytes())),
                        "an encoded secret reached the log or the audit");
            }
        } finally {
            Logger.getLogger("").removeHandler(capture);
            upstream.close();
            byIp.close();
        }
    }

    @Test
    void theProxyNamesItsTlsImplementation() {
        String expected = System.getProperty("mesa.egress.tls.provider", "auto").equals("jdk") ? ", JDK TLS" : ", BoringSSL";
        assertTrue(proxy.server().transport().contains(expected), proxy.server().transport());
    }

    private static String url(String path) {
        return "https://localhost:" + upstream.port() + path;
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpsUpstream.Seen last() {
        return upstream.seen().get(upstream.seen().size() - 1);
    }

    @Test
    void theCredentialIsInjectedWithoutAClientSentinel() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/echo/plain"))));
        assertEquals(200, response.statusCode());
        assertEquals(ANTHROPIC, last().header("x-api-key"));
        assertFalse(response.body().contains(ANTHROPIC), "the echoed secret is scrubbed: " + response.body());
        assertTrue(response.body().contains("sk-ant-sentinel"), response.body());
    }

    @Test
    void theClientsSentinelIsReplacedAndItsOwnValueOverwritten() throws Exception {
        send(HttpRequest.newBuilder(URI.create(url("/echo/s"))).header("X-Api-Key", "sk-ant-sentinel"));
        assertEquals(ANTHROPIC, last().header("x-api-key"));
        assertEquals(1, last().headers().get("x-api-key").size());
        send(HttpRequest.newBuilder(URI.create(url("/echo/o"))).header("x-api-key", "something-else"));
        assertEquals(ANTHROPIC, last().header("x-api-key"));
    }

    @Test
    void basicAuthQueryAndPathSentinelsAreReplaced() throws Exception {
        String basic = Base64.getEncoder().encodeToString("x-access-token:proxy-injected".getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/git/repo.git/proxy-injected?token=proxy-injected")))
                .header("Authorization", "Basic " + basic));
        assertEquals(200, response.statusCode(), response.body());
        HttpsUpstream.Seen seen = last();
        String decoded = new String(Base64.getDecoder().decode(seen.header("Authorization").substring(6)), StandardCharsets.UTF_8);
        assertEquals("x-access-token:" + GITHUB, decoded);
        assertEquals("/git/repo.git/" + GITHUB + "?token=" + GITHUB, seen.uri());
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("path").asText().startsWith("/git/"));
        assertEquals("github", record.get("credential").asText());
        assertEquals("intercept", record.get("mode").asText());
        assertFalse(record.get("path").asText().contains(GITHUB), record.toString());
    }

    @Test
    void aSentinelHeadedToAnotherAllowedHostIsRefused() throws Exception {
        int before = byIp.seen().size();
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + byIp.port() + "/x"))
                .header("x-api-key", "sk-ant-sentinel"));
        assertEquals(403, response.statusCode());
        assertEquals("credential_endpoint_mismatch", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        assertEquals(before, byIp.seen().size(), "nothing was sent upstream");
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("credential_endpoint_mismatch"));
        assertEquals("anthropic", record.get("credential").asText());
    }

    @Test
    void aRealSecretFromTheClientIsRefused() throws Exception {
        int before = upstream.seen().size();
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/echo/leak"))).header("X-Debug", "key=" + ANTHROPIC));
        assertEquals(403, response.statusCode());
        assertEquals("secret_leak", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        assertFalse(response.body().contains(ANTHROPIC));
        assertEquals(before, upstream.seen().size());
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("secret_leak")
                && r.get("path").asText().equals("[redacted]") && r.get("credential").asText().equals("anthropic"));
        assertEquals(403, record.get("status").asInt());
    }

    @Test
    void aSecretInThePathIsRefusedAndKeptOutOfTheAudit() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/echo/" + GITHUB))));
        assertEquals(403, response.statusCode());
        assertEquals("secret_leak", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("secret_leak")
                && r.get("credential").asText().equals("github"));
        assertEquals("[redacted]", record.get("path").asText());
    }

    @Test
    void traceIsRefused() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/echo"))).method("TRACE",
                HttpRequest.BodyPublishers.noBody()));
        assertEquals(405, response.statusCode());
        assertEquals("method_refused", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
    }

    @Test
    void aSecretEchoedInAHeaderAndInABodySplitAcrossChunksReachesTheClientAsItsSentinel() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/reflect"))));
        assertEquals(200, response.statusCode());
        assertEquals("you sent sk-ant-sentinel", response.headers().firstValue("X-Echoed-Key").orElse(null));
        assertEquals("{\"error\": \"invalid key sk-ant-sentinel\"}", response.body());
    }

    @Test
    void theLeafCertificateIsMintedOncePerHost() throws Exception {
        assertEquals(200, send(HttpRequest.newBuilder(URI.create(url("/echo/leaf")))).statusCode());
        double before = leavesIssued();
        for (int i = 0; i < 3; i++) {
            HttpClient fresh = HttpClient.newBuilder()
                    .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                    .sslContext(TestPki.trusting(proxy.server().ca().certificate()))
                    .build();
            assertEquals(200, fresh.send(HttpRequest.newBuilder(URI.create(url("/echo/leaf"))).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
        }
        assertTrue(before >= 1);
        assertEquals(before, leavesIssued(), "three new connections to localhost reused its leaf");
        String metrics = proxy.admin("/metrics").body();
        assertTrue(metrics.contains("mesa_egress_injections_total{credential=\"anthropic\",outcome=\"injected\"}"), metrics);
    }

    private static double leavesIssued() throws Exception {
        return proxy.metric("mesa_egress_leaf_certificates_issued_total");
    }

    @Test
    void theCaIsServedOnTheAdminPort() throws Exception {
        HttpResponse<String> pem = proxy.admin("/ca.pem");
        assertEquals(200, pem.statusCode());
        assertTrue(pem.body().startsWith("-----BEGIN CERTIFICATE-----"), pem.body());
    }

    @Test
    void aHundredMebibyteInterceptedUploadArrivesWholeWithBoundedMemory() throws Exception {
        long size = 100L * 1024 * 1024;
        try (MemoryWatch watch = new MemoryWatch()) {
            HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/echo/upload")))
                    .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(
                            () -> new java.io.ByteArrayInputStream(new byte[0]) {
                                private long left = size;

                                @Override
                                public synchronized int read(byte[] b, int off, int len) {
                                    if (left <= 0) {
                                        return -1;
                                    }
                                    int n = (int) Math.min(len, left);
                                    java.util.Arrays.fill(b, off, off + n, (byte) 'u');
                                    left -= n;
                                    return n;
                                }
                            }), size)));
            assertEquals(200, response.statusCode());
            assertEquals(size, last().bodyBytes());
            assertTrue(watch.peak() < 16L * 1024 * 1024, "proxy buffers peaked at " + watch.peak() + " bytes");
        }
    }

    @Test
    void aCredentialThatOptedInHasItsSentinelReplacedInTheRequestBody() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url("/json/v1/keys")))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"key\": \"body-sentinel\", \"n\": 1}")));
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("{\"key\": \"" + BODY_SECRET + "\", \"n\": 1}", last().body());
    }

    @Test
    void aHundredMebibyteInterceptedDownloadArrivesWhole() throws Exception {
        long size = 100L * 1024 * 1024;
        upstream.bigSize(size);
        try (MemoryWatch watch = new MemoryWatch()) {
            HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(URI.create(url("/big"))).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            long total = 0;
            int chunks = 0;
            try (InputStream in = response.body()) {
                byte[] buf = new byte[16 * 1024];
                int n;
                while ((n = in.read(buf)) > 0) {
                    total += n;
                    if (++chunks % 256 == 0) {
                        Thread.sleep(2); // a client slower than the upstream
                    }
                }
            }
            assertEquals(size, total);
            assertTrue(watch.peak() < 16L * 1024 * 1024, "proxy buffers peaked at " + watch.peak() + " bytes");
        }
    }

    /** A CONNECT to the upstream through {@code raw}, and TLS with the proxy's leaf inside it. */
    private SSLSocket intercepted(RawHttp raw) throws Exception {
        assertEquals(200, raw.send("CONNECT localhost:" + upstream.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
        SSLSocket tls = (SSLSocket) TestPki.trusting(proxy.server().ca().certificate()).getSocketFactory()
                .createSocket(raw.socket(), "localhost", upstream.port(), false);
        tls.startHandshake();
        return tls;
    }

    @Test
    void aHostHeaderNamingAnotherHostIs421() throws Exception {
        int before = upstream.seen().size();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            SSLSocket tls = intercepted(raw);
            tls.getOutputStream().write("GET /echo HTTP/1.1\r\nHost: other.example.org\r\nx-api-key: sk-ant-sentinel\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(tls.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 421", answer);
        }
        assertEquals(before, upstream.seen().size(), "nothing was sent upstream");
    }

    /** A CONNECT inside an intercepted connection would open a tunnel with none of this one's checks (issue 17, item 6). */
    @Test
    void aConnectInsideAnInterceptedConnectionIs405() throws Exception {
        int before = upstream.seen().size();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            SSLSocket tls = intercepted(raw);
            tls.getOutputStream().write(("CONNECT localhost:" + upstream.port() + " HTTP/1.1\r\nHost: localhost:" + upstream.port() + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            tls.setSoTimeout(5000);
            StringBuilder read = new StringBuilder();
            byte[] buf = new byte[4096];
            int n;
            try {
                while (!read.toString().strip().endsWith("}") && (n = tls.getInputStream().read(buf)) > 0) {
                    read.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
                }
            } catch (java.net.SocketTimeoutException e) {
                // what came is asserted below
            }
            String answer = read.toString();
            assertTrue(answer.startsWith("HTTP/1.1 405"), answer);
            assertTrue(answer.contains("X-Mesa-Egress-Reason: method_refused") || answer.toLowerCase().contains("x-mesa-egress-reason: method_refused"), answer);
            assertTrue(answer.contains("CONNECT inside an intercepted connection"), answer);
        }
        assertEquals(before, upstream.seen().size(), "nothing was sent upstream");
        // The class shares one proxy: find this request's record (other tests' may still be arriving).
        com.fasterxml.jackson.databind.JsonNode record = proxy.awaitAuditRecord(r -> "CONNECT".equals(r.path("method").asText())
                && "intercept".equals(r.path("mode").asText()) && "https".equals(r.path("scheme").asText()));
        assertEquals("method_refused", record.path("reason").asText(), record.toString());
        assertEquals(405, record.path("status").asInt());
    }

    /** Host carrying more than host[:port] inside interception is 400 (issue 17, item 7): a lenient reading takes "localhost/x" as localhost. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"localhost/evil", "localhost?x=1", "localhost#f", "user@localhost", "localhost\\x"})
    void aHostHeaderWithMoreThanHostAndPortIs400(String host) throws Exception {
        int before = upstream.seen().size();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            SSLSocket tls = intercepted(raw);
            tls.getOutputStream().write(("GET /echo HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(tls.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 400", answer, host);
        }
        assertEquals(before, upstream.seen().size(), "nothing was sent upstream");
    }
}
