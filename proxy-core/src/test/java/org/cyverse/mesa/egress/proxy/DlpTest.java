package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.cyverse.mesa.egress.testkit.BodyUpstream;
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code dlp}: secrets the proxy does not hold but recognizes (gitleaks' formats), in bodies and
 * headers, refused in block mode with the rule's name, only recorded in audit mode. Through the
 * real proxy to a real upstream that proves what it received.
 */
class DlpTest {

    static final String GITHUB_PAT = "ghp_Zk4Q9wYtR2mVx8LpN3bC7dF1hJ6sA0eG5uKo";
    static final String AWS_KEY = "AKIAQ3EGRT7BMX2PL5VZ";

    private static BodyUpstream upstream;
    /** Reads request trailers, which the JDK's server cannot. */
    private static org.cyverse.mesa.egress.testkit.EchoUpstream echo;
    private static ProxyFixture block;
    private static ProxyFixture audit;

    @BeforeAll
    static void start() throws Exception {
        upstream = new BodyUpstream(null);
        echo = new org.cyverse.mesa.egress.testkit.EchoUpstream(null);
        String base = "profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.port() + ", " + echo.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n";
        block = ProxyFixture.start(base + "dlp:\n  mode: block\n");
        audit = ProxyFixture.start(base + "dlp:\n  mode: audit\n  patterns: [github-pat, aws-access-token]\n");
    }

    @AfterAll
    static void stop() throws Exception {
        block.close();
        audit.close();
        upstream.close();
        echo.close();
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + upstream.port() + path;
    }

    private static HttpResponse<String> post(ProxyFixture proxy, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return proxy.client().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void blockRefusesATokenInABodyNamingTheRule() throws Exception {
        int before = upstream.seen().size();
        HttpResponse<String> response = post(block, "/commit", "{\"message\":\"add config\",\"env\":\"GH_TOKEN=" + GITHUB_PAT + "\"}");
        assertEquals(403, response.statusCode(), response.body());
        assertEquals("secret_leak", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        assertTrue(response.body().contains("github-pat") && !response.body().contains(GITHUB_PAT), response.body());
        assertEquals(before, upstream.seen().size(), "nothing reached the upstream");
        JsonNode record = block.awaitAuditRecord(r -> r.get("path").asText().equals("/commit"));
        assertEquals("github-pat", record.get("dlp").asText());
        assertEquals("body", record.get("place").asText());
        assertEquals("dlp:github-pat", record.get("rule").asText());
        assertTrue(!block.auditText().contains(GITHUB_PAT));
        String metrics = block.admin("/metrics").body();
        assertTrue(metrics.contains("mesa_egress_dlp_findings_total{action=\"block\",place=\"body\",rule=\"github-pat\"} 1.0"), metrics);
    }

    @Test
    void blockRefusesAKeyInAHeaderAndAHighEntropyBearerToAHostWithoutCredential() throws Exception {
        int before = upstream.seen().size();
        Curl.Result header = Curl.through(block.port(), "-i", "-H", "X-Debug: key=" + AWS_KEY, url("/aws"));
        assertTrue(header.out().startsWith("HTTP/1.1 403") && header.out().contains("aws-access-token"), header.out() + header.err());
        Curl.Result bearer = Curl.through(block.port(), "-i", "-H", "Authorization: Bearer 9f8Kq2LmZx7Vt4RwPn3Yb6Hc1Ts5", url("/api"));
        assertTrue(bearer.out().startsWith("HTTP/1.1 403") && bearer.out().contains("authorization-high-entropy"), bearer.out());
        assertEquals(before, upstream.seen().size(), "nothing reached the upstream");
        JsonNode record = block.awaitAuditRecord(r -> r.get("path").asText().equals("/aws"));
        assertEquals("header", record.get("place").asText());
        // An ordinary request still passes.
        Curl.Result plain = Curl.through(block.port(), "-H", "Authorization: Bearer aaaa", url("/ok"));
        assertTrue(plain.out().contains("\"bytes\":0"), plain.out() + plain.err());
    }

    @Test
    void auditRecordsAndLetsTheRequestThrough() throws Exception {
        int before = upstream.seen().size();
        HttpResponse<String> response = post(audit, "/audited", "{\"k\":\"" + GITHUB_PAT + "\"}");
        assertEquals(200, response.statusCode(), response.body());
        assertEquals(before + 1, upstream.seen().size());
        assertTrue(upstream.seen().get(before).complete);
        JsonNode record = audit.awaitAuditRecord(r -> r.get("path").asText().equals("/audited"));
        assertEquals("allow", record.get("decision").asText());
        assertEquals("github-pat", record.get("dlp").asText());
        assertEquals("body", record.get("place").asText());
        String metrics = audit.admin("/metrics").body();
        assertTrue(metrics.contains("mesa_egress_dlp_findings_total{action=\"audit\",place=\"body\",rule=\"github-pat\"} 1.0"), metrics);
        // Only the listed rules: a high-entropy bearer is not one of them here.
        Curl.Result bearer = Curl.through(audit.port(), "-H", "Authorization: Bearer 9f8Kq2LmZx7Vt4RwPn3Yb6Hc1Ts5", url("/unlisted"));
        assertTrue(bearer.out().contains("\"bytes\":0"), bearer.out() + bearer.err());
        JsonNode unlisted = audit.awaitAuditRecord(r -> r.get("path").asText().equals("/unlisted"));
        assertTrue(unlisted.get("dlp").isNull(), unlisted.toString());
    }

    @Test
    void aTokenInATrailerIsJudgedAsInAHeader() throws Exception {
        String request = "POST http://127.0.0.1:" + echo.port() + "/trailer-dlp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2\r\n{}\r\n0\r\nX-Debug: " + GITHUB_PAT + "\r\n\r\n";
        try (org.cyverse.mesa.egress.testkit.RawHttp raw = new org.cyverse.mesa.egress.testkit.RawHttp(block.port())) {
            org.cyverse.mesa.egress.testkit.RawHttp.Response response = raw.send(request).read();
            assertEquals(403, response.status(), response.body());
            assertTrue(response.body().contains("github-pat") && !response.body().contains(GITHUB_PAT), response.body());
        }
        assertTrue(echo.seen().isEmpty(), "nothing reached the upstream");
        JsonNode record = block.awaitAuditRecord(r -> r.get("path").asText().equals("/trailer-dlp"));
        assertEquals("trailer", record.get("place").asText());
        assertEquals("github-pat", record.get("dlp").asText());
        try (org.cyverse.mesa.egress.testkit.RawHttp raw = new org.cyverse.mesa.egress.testkit.RawHttp(audit.port())) {
            org.cyverse.mesa.egress.testkit.RawHttp.Response ok = raw.send(request.replace("/trailer-dlp", "/trailer-audit")).read();
            assertEquals(200, ok.status(), "audit mode lets it through: " + ok.body());
        }
        JsonNode audited = audit.awaitAuditRecord(r -> r.get("path").asText().equals("/trailer-audit"));
        assertEquals("github-pat", audited.get("dlp").asText());
        assertEquals("trailer", audited.get("place").asText());
    }
}
