package org.cyverse.mesa.egress.proxy;

import static org.cyverse.mesa.egress.proxy.LiteLlmProxyTest.KEY_1;
import static org.cyverse.mesa.egress.proxy.LiteLlmProxyTest.MASTER;
import static org.cyverse.mesa.egress.proxy.LiteLlmProxyTest.chat;
import static org.cyverse.mesa.egress.proxy.LiteLlmProxyTest.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.cyverse.mesa.egress.injector.mint.FakeLiteLlm;
import org.cyverse.mesa.egress.injector.openbao.LogCapture;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kill switch and the admin token, on the real proxy: a wrong or missing token changes
 * nothing; the right one closes a running stream at once, refuses every later request, blocks the
 * minted key at LiteLLM, and stays pulled through a reload; the kill file does the same.
 */
class KillSwitchTest {

    private static final String ADMIN_TOKEN = "c0ffee-admin-token-7d2f9a41b8e3";

    @TempDir
    Path dir;
    private FakeLiteLlm litellm;
    private LogCapture logs;

    @BeforeEach
    void start() throws Exception {
        logs = new LogCapture();
        litellm = FakeLiteLlm.https(dir);
        Files.writeString(dir.resolve("litellm.json"), "{\"master_key\": \"" + MASTER + "\"}");
        Files.writeString(dir.resolve("admin-token"), ADMIN_TOKEN + "\n");
        litellm.generates(MASTER, 8 * 3600, KEY_1);
        litellm.blocksAndDeletes();
    }

    @AfterEach
    void stop() {
        try {
            litellm.close();
            logs.assertNoneOf(MASTER, KEY_1, ADMIN_TOKEN);
        } finally {
            logs.close();
        }
    }

    private String config(String controls) {
        return LiteLlmProxyTest.config(litellm, dir, "", "admin:\n  listen: 127.0.0.1:0\n" + controls);
    }

    private static HttpResponse<String> post(ProxyFixture proxy, String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.adminPort() + path))
                .timeout(Duration.ofSeconds(5)).POST(HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void withoutTheRightTokenNothingIsKilledAndEachTryIsAudited() throws Exception {
        litellm.chat(KEY_1, "{\"ok\": true}");
        try (ProxyFixture proxy = ProxyFixture.start(config("  token_file: \"" + dir.resolve("admin-token") + "\"\n"))) {
            proxy.awaitReady(Duration.ofSeconds(10));
            for (String authorization : new String[] {null, "Bearer wrong-token-0000000000", "Basic " + ADMIN_TOKEN,
                    "Bearer " + ADMIN_TOKEN.substring(0, ADMIN_TOKEN.length() - 1)}) {
                HttpResponse<String> refused = post(proxy, "/kill", authorization);
                assertEquals(401, refused.statusCode(), String.valueOf(authorization));
                assertEquals("admin_unauthorized", refused.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
                assertTrue(refused.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
                assertTrue(refused.body().contains("admin.token_file"), refused.body());
            }
            assertEquals(401, post(proxy, "/approvals/x/approve", null).statusCode(), "an unknown path learns nothing either");

            assertFalse(proxy.server().killed());
            assertEquals(200, proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofString()).statusCode(), "still serving");
            assertTrue(litellm.requests("/key/block").isEmpty(), "the key was not blocked");
            // The audit log is written in batches: wait for the five records, then count them.
            java.util.function.LongSupplier denied = () -> proxy.auditRecords().stream()
                    .filter(r -> "admin".equals(r.path("mode").asText()) && "admin_unauthorized".equals(r.path("reason").asText())).count();
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (denied.getAsLong() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(5, denied.getAsLong(), proxy.auditText());
            assertTrue(new String(proxy.server().metrics().scrape()).contains("mesa_egress_kill_switch 0.0"));
        }
    }

    @Test
    void withoutATokenFileNoCallMayChangeState() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(config(""))) {
            HttpResponse<String> refused = post(proxy, "/kill", "Bearer anything-at-all-here");
            assertEquals(401, refused.statusCode());
            assertTrue(refused.body().contains("no admin.token_file is configured"), refused.body());
            assertFalse(proxy.server().killed());
        }
    }

    @Test
    void theKillClosesARunningStreamRefusesTheNextRequestBlocksTheKeyAndSurvivesAReload() throws Exception {
        litellm.chatStreams(KEY_1, 200, 20_000); // 200 events over 20 s
        try (ProxyFixture proxy = ProxyFixture.start(config("  token_file: \"" + dir.resolve("admin-token") + "\"\n"))) {
            proxy.awaitReady(Duration.ofSeconds(10));
            HttpResponse<InputStream> stream = proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, stream.statusCode());
            InputStream body = stream.body();
            byte[] buf = new byte[4096];
            assertTrue(body.read(buf) > 0, "the stream is running");
            AtomicLong lastByte = new AtomicLong();
            CompletableFuture<Long> drained = CompletableFuture.supplyAsync(() -> {
                long bytes = 0;
                try {
                    int n;
                    while ((n = body.read(buf)) > 0) {
                        bytes += n;
                        lastByte.set(System.nanoTime());
                    }
                } catch (IOException e) {
                    // cut: what a kill does to a stream
                }
                return bytes;
            });

            long killAt = System.nanoTime();
            HttpResponse<String> killed = post(proxy, "/kill", "Bearer " + ADMIN_TOKEN);
            drained.get(5, TimeUnit.SECONDS);
            long ended = System.nanoTime();

            assertEquals(200, killed.statusCode(), killed.body());
            assertTrue(killed.body().contains("\"killed\":true"), killed.body());
            long silenceMillis = (Math.max(ended, lastByte.get()) - killAt) / 1_000_000;
            System.out.println("kill-to-silence: " + silenceMillis + " ms (last byte relayed "
                    + Math.max(0, (lastByte.get() - killAt) / 1_000_000) + " ms after POST /kill was sent)");
            assertTrue(silenceMillis < 2000, "the stream was still relayed " + silenceMillis + " ms after the kill");

            RawHttp.Response next = connect(proxy);
            assertEquals(403, next.status());
            assertEquals("egress_killed", next.header("X-Mesa-Egress-Reason"));
            assertTrue(next.body().contains("restart"), next.body());
            awaitBlocked(KEY_1);
            assertEquals(1, litellm.requests("/chat/completions").size(), "nothing reached the gateway after the kill");
            assertEquals(503, proxy.admin("/readyz").statusCode());
            assertTrue(new String(proxy.server().metrics().scrape()).contains("mesa_egress_kill_switch 1.0"));
            JsonNode event = proxy.awaitAuditRecord(r -> "KILL".equals(r.path("method").asText()));
            assertEquals("egress_killed", event.path("reason").asText());
            assertTrue(event.path("rule").asText().contains("admin POST /kill"), event.toString());

            proxy.server().reload(ProxyFixture.loader().load(proxy.configFile(), org.cyverse.mesa.egress.config.Overrides.NONE).config());
            assertEquals("egress_killed", connect(proxy).header("X-Mesa-Egress-Reason"), "a reload keeps it");
            assertEquals(1, litellm.bodies("/key/generate").size(), "no key minted again after the kill");
            assertEquals(200, post(proxy, "/kill", "Bearer " + ADMIN_TOKEN).statusCode(), "pulling it again is harmless");
            String everything = proxy.auditText() + new String(proxy.server().metrics().scrape()) + killed.body() + next.body();
            assertFalse(everything.contains(ADMIN_TOKEN) || everything.contains(KEY_1) || everything.contains(MASTER));
        }
    }

    @Test
    void theKillFileAppearingKillsWithinSeconds() throws Exception {
        litellm.chat(KEY_1, "{\"ok\": true}");
        Path killFile = dir.resolve("kill");
        try (ProxyFixture proxy = ProxyFixture.start(config("  kill_file: \"" + killFile + "\"\n"))) {
            proxy.awaitReady(Duration.ofSeconds(10));
            assertEquals(200, proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofString()).statusCode());
            Files.writeString(killFile, "false\n");
            Thread.sleep(1500);
            assertFalse(proxy.server().killed(), "a kill file saying false does not kill");

            Files.writeString(killFile, "true\n"); // a ConfigMap key flipped
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!proxy.server().killed() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(proxy.server().killed());
            assertEquals("egress_killed", connect(proxy).header("X-Mesa-Egress-Reason"));
            awaitBlocked(KEY_1);
        }
    }

    /**
     * A request to the gateway from a real client that trusts the proxy's CA: the refused CONNECT is
     * told inside TLS (tls.explain_refusals), so the client reads the status, reason and body.
     */
    private RawHttp.Response connect(ProxyFixture proxy) throws Exception {
        HttpResponse<String> r = proxy.interceptingClient().send(HttpRequest.newBuilder(URI.create(litellm.url() + "/v1/models"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return new RawHttp.Response("HTTP/1.1 " + r.statusCode(), r.statusCode(),
                java.util.Map.of("x-mesa-egress-reason", r.headers().firstValue("X-Mesa-Egress-Reason").orElse("")), r.body());
    }

    private void awaitBlocked(String key) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (litellm.bodies("/key/block").stream().noneMatch(b -> key.equals(b.path("key").asText())) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(litellm.bodies("/key/block").stream().anyMatch(b -> key.equals(b.path("key").asText())), "the minted key was blocked");
    }
}
