package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A credential's {@code limits:} through the real proxy: a real client over intercepted HTTPS to a
 * real upstream. Over a limit the client gets 429 {@code credential_budget_exceeded} with
 * {@code Retry-After} and a hint naming the limit; the upstream never sees the request, with or
 * without the credential; the refusal is audited and counted.
 */
class CredentialBudgetTest {

    static final String SECRET = "sk-ant-REAL-budget-7d2f0a";
    static final String SENTINEL = "sk-ant-sentinel";

    @TempDir
    Path dir;
    private TestPki pki;
    private HttpsUpstream upstream;
    private Path ca;
    private Path secrets;

    @BeforeEach
    void start() throws Exception {
        pki = new TestPki("upstream");
        upstream = new HttpsUpstream(pki.serverContext("localhost", "127.0.0.1"), "127.0.0.1");
        ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "anthropic: \"" + SECRET + "\"\n");
    }

    @AfterEach
    void stop() {
        upstream.close();
    }

    private String config(String limits) {
        return "profile: P2\n"
                + "tls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n"
                + "  - name: anthropic\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#anthropic\"\n"
                + "    limits: " + limits + "\n";
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + path))
                .header("x-api-key", SENTINEL).timeout(Duration.ofSeconds(20)).build();
    }

    private static void assertBudgetRefusal(HttpResponse<String> response, String limit, long maxRetryAfter) throws Exception {
        assertEquals(429, response.statusCode(), response.body());
        assertEquals("credential_budget_exceeded", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        long retryAfter = Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1 && retryAfter <= maxRetryAfter, "Retry-After in seconds: " + retryAfter);
        JsonNode body = new ObjectMapper().readTree(response.body());
        assertEquals("credential_budget_exceeded", body.path("reason").asText());
        assertTrue(body.path("hint").asText().contains(limit), "the hint names the limit: " + body);
        assertTrue(body.path("hint").asText().contains("anthropic"), "the hint names the credential: " + body);
        assertFalse(response.body().contains(SECRET));
    }

    @Test
    void overRequestsPerMinuteTheClientGets429WithRetryAfterAndTheUpstreamNothing() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(config("{requests_per_minute: 2}"))) {
            proxy.awaitReady(Duration.ofSeconds(5));
            HttpClient client = proxy.interceptingClient();
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> ok = client.send(request("/echo/" + i), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, ok.statusCode(), ok.body());
            }
            assertEquals(2, upstream.seen().size());
            assertEquals(SECRET, upstream.seen().get(1).header("x-api-key"), "injected while within the limit");

            HttpResponse<String> over = client.send(request("/echo/2"), HttpResponse.BodyHandlers.ofString());

            assertBudgetRefusal(over, "requests_per_minute: 2", 60);
            assertEquals(2, upstream.seen().size(), "the request over the limit was not sent at all");
            // Without the sentinel the proxy would still set the credential's header: limited the same way.
            HttpResponse<String> bare = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/echo/bare"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            assertBudgetRefusal(bare, "requests_per_minute: 2", 60);
            assertEquals(2, upstream.seen().size());

            proxy.awaitAuditRecord(r -> "/echo/bare".equals(r.path("path").asText()));
            JsonNode audit = proxy.awaitAuditRecord(r -> "/echo/2".equals(r.path("path").asText()));
            assertEquals("credential_budget_exceeded", audit.path("reason").asText());
            assertEquals("anthropic", audit.path("credential").asText());
            assertEquals("limits.requests_per_minute", audit.path("rule").asText());
            assertEquals(429, audit.path("status").asInt());
            String metrics = new String(proxy.server().metrics().scrape());
            assertTrue(metrics.contains("mesa_egress_credential_budget_refusals_total{credential=\"anthropic\",limit=\"requests_per_minute\"} 2.0"),
                    metrics);
            assertTrue(metrics.contains("mesa_egress_requests_total{decision=\"deny\",mode=\"intercept\",reason=\"credential_budget_exceeded\"} 2.0"),
                    metrics);
            assertTrue(metrics.contains("mesa_egress_injections_total{credential=\"anthropic\",outcome=\"injected\"} 2.0"),
                    "the refused requests were not injected: " + metrics);
            assertFalse(proxy.auditText().contains(SECRET));
        }
    }

    @Test
    void concurrentCountsARequestUntilItsResponseEnds() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(config("{concurrent: 1}"))) {
            proxy.awaitReady(Duration.ofSeconds(5));
            HttpClient client = proxy.interceptingClient();
            CompletableFuture<HttpResponse<String>> running = client.sendAsync(request("/hold"), HttpResponse.BodyHandlers.ofString());
            assertTrue(upstream.awaitHeld(Duration.ofSeconds(10)), "the first request reached the upstream");

            HttpResponse<String> second = client.send(request("/echo/second"), HttpResponse.BodyHandlers.ofString());

            assertBudgetRefusal(second, "concurrent: 1", 1);
            assertEquals(1, upstream.seen().size(), "only the running request reached the upstream");
            upstream.letOneGo();
            assertEquals(200, running.get().statusCode());
            // Its place is freed as its exchange ends, which the client may see a moment before.
            HttpResponse<String> third = null;
            for (int i = 0; i < 50 && (third == null || third.statusCode() == 429); i++) {
                if (third != null) {
                    Thread.sleep(20);
                }
                third = client.send(request("/echo/third"), HttpResponse.BodyHandlers.ofString());
            }
            assertEquals(200, third.statusCode(), "the place is free once the running request ended: " + third.body());
            assertEquals(SECRET, upstream.seen().get(upstream.seen().size() - 1).header("x-api-key"));
        }
    }

    @Test
    void responseBytesPerHourStopTheNextRequestOnceSpent() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(config("{response_bytes_per_hour: 100KiB}"))) {
            proxy.awaitReady(Duration.ofSeconds(5));
            HttpClient client = proxy.interceptingClient();
            upstream.bigSize(150 * 1024);
            HttpResponse<byte[]> big = client.send(request("/big"), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, big.statusCode());
            assertEquals(150 * 1024, big.body().length, "a response in flight is never cut for the budget");
            proxy.awaitAuditRecord(r -> "/big".equals(r.path("path").asText()));

            HttpResponse<String> next = client.send(request("/echo/next"), HttpResponse.BodyHandlers.ofString());

            assertBudgetRefusal(next, "response_bytes_per_hour: 100 KiB", 3600);
            assertEquals(1, upstream.seen().size());
        }
    }

    @Test
    void aReloadThatChangesOnlyLimitsKeepsTheCountAndTheCredentialValue() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(config("{requests_per_minute: 5}"))) {
            proxy.awaitReady(Duration.ofSeconds(5));
            HttpClient client = proxy.interceptingClient();
            for (int i = 0; i < 2; i++) {
                assertEquals(200, client.send(request("/echo/" + i), HttpResponse.BodyHandlers.ofString()).statusCode());
            }
            String fetched = refreshes(proxy);
            proxy.server().reload(ProxyFixture.loader().load(writeConfig(config("{requests_per_minute: 2}")),
                    org.cyverse.mesa.egress.config.Overrides.NONE).config());

            assertBudgetRefusal(client.send(request("/echo/after"), HttpResponse.BodyHandlers.ofString()), "requests_per_minute: 2", 60);
            assertEquals(2, upstream.seen().size());
            assertEquals(fetched, refreshes(proxy), "the credential's value was not fetched again (a minted key would not be re-minted)");
        }
    }

    private static String refreshes(ProxyFixture proxy) {
        return new String(proxy.server().metrics().scrape()).lines().filter(l -> l.startsWith("mesa_egress_credential_refresh_total{"))
                .toList().toString();
    }

    private Path writeConfig(String yaml) throws Exception {
        Path file = dir.resolve("reloaded.yaml");
        Files.writeString(file, ProxyFixture.config(yaml));
        return file;
    }
}
