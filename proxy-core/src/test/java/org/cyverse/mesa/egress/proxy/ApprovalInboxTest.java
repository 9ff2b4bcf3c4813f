package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.cyverse.mesa.egress.proxy.server.ConfigReloader;
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The approval inbox end to end: curl through the real proxy to hosts of no rule (named *.test,
 * resolved to a real upstream on loopback) gets {@code approval_required}; an operator's call
 * with the admin token approves; curl's retry goes through; the grant expires; a restart keeps an
 * unexpired grant; the agent's side (no token, or a token it made up) cannot list, approve or deny.
 */
class ApprovalInboxTest {

    static final String ALICE = "alice-token-5b0e2d9c4a7f1e36";
    static final String INBOX = "inbox-token-0c9d8e7f6a5b4c3d";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private HttpServer upstream;
    private final java.util.concurrent.atomic.AtomicInteger hits = new java.util.concurrent.atomic.AtomicInteger();
    private String yaml;

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.createContext("/", exchange -> {
            hits.incrementAndGet();
            byte[] body = ("hello from " + exchange.getRequestHeaders().getFirst("Host") + "\n").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.start();
        Files.writeString(dir.resolve("token"), "# operators and the inbox each have a token\nalice " + ALICE + "\ninbox " + INBOX + "\n");
        yaml = "profile: P2\negress: N2\n"
                + "admin: {listen: 127.0.0.1:0, token_file: \"" + dir.resolve("token") + "\"}\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "deny:\n  - host: \"blocked.test\"\n"
                + "approvals:\n  enabled: true\n  pending_ttl: 15m\n  state_file: \"" + dir.resolve("state/approvals.json") + "\"\n";
    }

    @AfterEach
    void stop() {
        upstream.stop(0);
    }

    private ProxyFixture proxy() throws IOException {
        // Every *.test name is the upstream on loopback; the address guard still runs (127.0.0.1 is allowed above).
        return ProxyFixture.start(yaml, host -> host.endsWith(".test") ? List.of(InetAddress.getByName("127.0.0.1"))
                : List.of(InetAddress.getAllByName(host)));
    }

    private String url(String host) {
        return "http://" + host + ":" + upstream.getAddress().getPort() + "/simple/";
    }

    private static HttpResponse<String> call(ProxyFixture proxy, String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.adminPort() + path))
                .timeout(Duration.ofSeconds(5))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void deniedWithAnIdApprovedByAnOperatorTheRetryGoesThroughUntilTheGrantExpires() throws Exception {
        try (ProxyFixture proxy = proxy()) {
            Curl.Result refused = Curl.through(proxy.port(), "-i", url("pypi.test"));
            assertTrue(refused.out().startsWith("HTTP/1.1 403"), refused.out());
            JsonNode body = JSON.readTree(refused.out().substring(refused.out().indexOf("\r\n\r\n") + 4));
            assertEquals("approval_required", body.path("reason").asText());
            String id = body.path("approval_id").asText();
            assertTrue(id.startsWith("apr_"), body.toString());
            assertEquals("pypi.test", body.path("scope").path("host").asText());
            assertEquals(upstream.getAddress().getPort(), body.path("scope").path("ports").get(0).asInt());
            assertTrue(body.path("hint").asText().contains(id), body.toString());
            assertFalse(body.path("expires").asText().isEmpty());
            Curl.Result again = Curl.through(proxy.port(), url("pypi.test"));
            assertEquals(id, JSON.readTree(again.out()).path("approval_id").asText(), "the same host joins the same request");

            // The agent's side: no token, or one it made up, cannot list or decide.
            assertEquals(401, call(proxy, "GET", "/approvals", null, null).statusCode());
            assertEquals(401, call(proxy, "GET", "/approvals", "sk-ant-sentinel-guess-1234", null).statusCode());
            HttpResponse<String> forged = call(proxy, "POST", "/approvals/" + id + "/approve", "x".repeat(32), "{\"ttl\": \"job\"}");
            assertEquals(401, forged.statusCode());
            assertEquals("admin_unauthorized", JSON.readTree(forged.body()).path("reason").asText());
            proxy.awaitAuditRecord(r -> "admin".equals(r.path("mode").asText()) && "admin_unauthorized".equals(r.path("reason").asText())
                    && r.path("path").asText().endsWith("/approve"));

            HttpResponse<String> listed = call(proxy, "GET", "/approvals", ALICE, null);
            assertEquals(200, listed.statusCode(), listed.body());
            JsonNode pending = JSON.readTree(listed.body()).path("approvals").get(0);
            assertEquals(id, pending.path("id").asText());
            assertEquals("pending", pending.path("state").asText());
            assertEquals(2, pending.path("count").asInt());

            // Bad input names the field; nothing changes.
            HttpResponse<String> noTtl = call(proxy, "POST", "/approvals/" + id + "/approve", ALICE, "{}");
            assertEquals(400, noTtl.statusCode());
            assertTrue(noTtl.body().contains("ttl is required"), noTtl.body());
            assertEquals(400, call(proxy, "POST", "/approvals/" + id + "/approve", ALICE, "{\"ttl\": \"10\"}").statusCode());
            assertEquals(400, call(proxy, "POST", "/approvals/" + id + "/approve", ALICE, "{\"ttl\": ").statusCode());
            assertEquals(404, call(proxy, "POST", "/approvals/apr_0000/approve", ALICE, "{\"ttl\": \"1h\"}").statusCode());

            HttpResponse<String> approved = call(proxy, "POST", "/approvals/" + id + "/approve", ALICE, "{\"ttl\": \"3s\"}");
            assertEquals(200, approved.statusCode(), approved.body());
            assertEquals("alice", JSON.readTree(approved.body()).path("approval").path("decided_by").asText());

            Curl.Result retried = Curl.through(proxy.port(), url("pypi.test"));
            assertEquals("hello from pypi.test:" + upstream.getAddress().getPort() + "\n", retried.out(), retried.err());
            JsonNode allowed = proxy.awaitAuditRecord(r -> "forward".equals(r.path("mode").asText()) && "allowed".equals(r.path("reason").asText()));
            assertEquals("approval " + id + ": pypi.test", allowed.path("rule").asText(), "the audit record names the approval");
            JsonNode decided = proxy.awaitAuditRecord(r -> "approval".equals(r.path("mode").asText()) && "APPROVED".equals(r.path("method").asText()));
            assertTrue(decided.path("rule").asText().contains("granted by alice"), decided.toString());
            String metrics = new String(proxy.server().metrics().scrape());
            assertTrue(metrics.contains("mesa_egress_approvals_total{outcome=\"approved\"} 1.0"), metrics);
            assertTrue(metrics.contains("mesa_egress_approvals_pending 0.0"), metrics);
            assertEquals(410, call(proxy, "POST", "/approvals/" + id + "/deny", INBOX, null).statusCode(), "decided once");

            // The grant ends at its TTL: the next request asks again.
            Thread.sleep(3100);
            Curl.Result expired = Curl.through(proxy.port(), url("pypi.test"));
            JsonNode asked = JSON.readTree(expired.out());
            assertEquals("approval_required", asked.path("reason").asText(), expired.out());
            assertNotEquals(id, asked.path("approval_id").asText());
            proxy.awaitAuditRecord(r -> "GRANT_EXPIRED".equals(r.path("method").asText()));
        }
    }

    @Test
    void aWildcardForOneHostIsWiderAndADenialIsSaid() throws Exception {
        try (ProxyFixture proxy = proxy()) {
            String id = JSON.readTree(Curl.through(proxy.port(), url("a.example.test")).out()).path("approval_id").asText();
            HttpResponse<String> wider = call(proxy, "POST", "/approvals/" + id + "/approve", ALICE,
                    "{\"scope\": {\"host\": \"*.example.test\", \"ports\": [" + upstream.getAddress().getPort() + "]}, \"ttl\": \"1h\"}");
            assertEquals(400, wider.statusCode());
            assertTrue(wider.body().contains("not the host asked for"), wider.body());

            assertEquals(200, call(proxy, "POST", "/approvals/" + id + "/deny", INBOX, null).statusCode());
            JsonNode denied = JSON.readTree(Curl.through(proxy.port(), url("a.example.test")).out());
            assertEquals("host_not_allowed", denied.path("reason").asText());
            assertTrue(denied.path("hint").asText().contains("denied"), denied.toString());
            proxy.awaitAuditRecord(r -> "DENIED".equals(r.path("method").asText()) && r.path("rule").asText().contains("denied by inbox"));

            // Never approvable: the deny list, and an address literal of no rule.
            assertEquals("host_not_allowed", JSON.readTree(Curl.through(proxy.port(), url("blocked.test")).out()).path("reason").asText());
            assertEquals("host_not_allowed", JSON.readTree(Curl.through(proxy.port(), "http://169.254.169.254/latest").out())
                    .path("reason").asText());
            assertEquals(0, JSON.readTree(call(proxy, "GET", "/approvals", ALICE, null).body()).path("pending").asInt());
        }
    }

    @Test
    void aRestartInsideTheJobKeepsAnUnexpiredApproval() throws Exception {
        String id;
        try (ProxyFixture proxy = proxy()) {
            id = JSON.readTree(Curl.through(proxy.port(), url("docs.test")).out()).path("approval_id").asText();
            assertEquals(200, call(proxy, "POST", "/approvals/" + id + "/approve", ALICE, "{\"ttl\": \"job\"}").statusCode());
            Path state = dir.resolve("state/approvals.json");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!(Files.exists(state) && Files.readString(state).contains("\"approved\"")) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(Files.readString(state).contains(id), "written to approvals.state_file");
        }
        try (ProxyFixture restarted = proxy()) {
            Curl.Result result = Curl.through(restarted.port(), url("docs.test"));
            assertEquals("hello from docs.test:" + upstream.getAddress().getPort() + "\n", result.out(), "no second approval needed");
            // A reload keeps it too (a new deny entry elsewhere, the grant untouched).
            restarted.rewriteConfig(yaml.replace("deny:\n", "deny:\n  - host: \"other.test\"\n"));
            try (ConfigReloader reloader = new ConfigReloader(restarted.configFile(), ProxyFixture.loader(),
                    org.cyverse.mesa.egress.config.Overrides.NONE, restarted.server())) {
                assertTrue(reloader.reloadNow("test"));
            }
            assertEquals(2, restarted.server().config().deny().size(), "the reload was applied");
            assertEquals("hello from docs.test:" + upstream.getAddress().getPort() + "\n", Curl.through(restarted.port(), url("docs.test")).out());
        }
    }

    private void holding(String hold) {
        yaml = yaml.replace("  enabled: true\n", "  enabled: true\n  hold: " + hold + "\n  max_held: 2\n");
    }

    private static String pendingId(ProxyFixture proxy) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode list = JSON.readTree(call(proxy, "GET", "/approvals", ALICE, null).body()).path("approvals");
            for (JsonNode a : list) {
                if (a.path("state").asText().equals("pending")) {
                    return a.path("id").asText();
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no pending approval");
    }

    @Test
    void aHeldRequestCompletesOnceApprovedWithoutARetry() throws Exception {
        holding("20s");
        try (ProxyFixture proxy = proxy()) {
            HttpClient client = HttpClient.newBuilder().proxy(java.net.ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                    .build();
            long start = System.nanoTime();
            var waiting = client.sendAsync(HttpRequest.newBuilder(URI.create(url("pypi.test"))).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            String id = pendingId(proxy);
            assertFalse(waiting.isDone(), "the request waits for the decision");
            try (var raw = new org.cyverse.mesa.egress.testkit.RawHttp(proxy.port())) {
                raw.send("CONNECT pypi.test:" + upstream.getAddress().getPort() + " HTTP/1.1\r\nHost: pypi.test\r\n\r\n");
                Thread.sleep(200);
                assertEquals(200, call(proxy, "POST", "/approvals/" + id + "/approve", ALICE, "{\"ttl\": \"1h\"}").statusCode());
                HttpResponse<String> done = waiting.get();
                assertEquals(200, done.statusCode(), done.body());
                assertEquals("hello from pypi.test:" + upstream.getAddress().getPort() + "\n", done.body());
                assertTrue(System.nanoTime() - start < Duration.ofSeconds(15).toNanos(), "resumed by the approval, not the hold's end");
                assertEquals(200, raw.read().status(), "a held CONNECT for the same host and port is let through too");
            }
        }
    }

    @Test
    void aHeldRequestNoOneDecidesIsRefusedWhenTheHoldEndsAndMaxHeldIsKept() throws Exception {
        holding("3s");
        try (ProxyFixture proxy = proxy()) {
            HttpClient client = HttpClient.newBuilder().proxy(java.net.ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                    .build();
            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> held = new java.util.ArrayList<>();
            for (String host : List.of("a.test", "b.test")) {
                held.add(client.sendAsync(HttpRequest.newBuilder(URI.create(url(host))).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (JSON.readTree(call(proxy, "GET", "/approvals", ALICE, null).body()).path("pending").asInt() < 2
                    && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            Thread.sleep(100); // each is held right after its approval was asked for, on the same event loop
            long start = System.nanoTime();
            HttpResponse<String> third = client.send(HttpRequest.newBuilder(URI.create(url("c.test"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, third.statusCode());
            assertTrue(System.nanoTime() - start < Duration.ofMillis(2000).toNanos(), "max_held 2: the third is answered at once, not after 3 s");
            for (var h : held) {
                HttpResponse<String> r = h.get();
                assertEquals(403, r.statusCode());
                assertEquals("approval_required", JSON.readTree(r.body()).path("reason").asText(), "undecided: refused when the hold ends");
            }
        }
    }

    @Test
    void aClientThatGivesUpWhileHeldIsAuditedAndNotForwardedAndAStopAnswersTheHeld() throws Exception {
        holding("30s");
        try (ProxyFixture proxy = proxy()) {
            String target = url("gone.test");
            try (var raw = new org.cyverse.mesa.egress.testkit.RawHttp(proxy.port())) {
                raw.send("GET " + target + " HTTP/1.1\r\nHost: gone.test:" + upstream.getAddress().getPort() + "\r\n\r\n");
                pendingId(proxy);
            }
            JsonNode gaveUp = proxy.awaitAuditRecord(r -> "forward".equals(r.path("mode").asText())
                    && "approval_required".equals(r.path("reason").asText()));
            assertEquals("gone.test", gaveUp.path("host").asText());
            String id = pendingId(proxy);
            assertEquals(200, call(proxy, "POST", "/approvals/" + id + "/approve", ALICE, "{\"ttl\": \"1h\"}").statusCode());
            Thread.sleep(300);
            assertEquals(0, hits.get(), "the request of a client that went away is not sent once approved");

            HttpClient client = HttpClient.newBuilder().proxy(java.net.ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                    .build();
            var waiting = client.sendAsync(HttpRequest.newBuilder(URI.create(url("late.test"))).timeout(Duration.ofSeconds(40)).build(),
                    HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (JSON.readTree(call(proxy, "GET", "/approvals", ALICE, null).body()).path("pending").asInt() == 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, JSON.readTree(call(proxy, "GET", "/approvals", ALICE, null).body()).path("pending").asInt(),
                    "the late request is held before the stop");
            long start = System.nanoTime();
            proxy.server().stop(Duration.ofSeconds(10));
            HttpResponse<String> answered = waiting.get();
            assertEquals(403, answered.statusCode(), "a stop answers a held request instead of cutting it off");
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "at once, not at the hold's or the drain's end");
        }
    }
}
