package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.cyverse.mesa.egress.injector.mint.FakeLiteLlm;
import org.cyverse.mesa.egress.injector.openbao.LogCapture;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A minted LiteLLM virtual key end to end: the real proxy mints it from a fake LiteLLM (WireMock
 * answering with the fixtures of the injector's resources/litellm/, shaped as LiteLLM's source
 * gives them: see its README), injects it into a real client's requests to the same server
 * standing for the gateway, passes the gateway's refusals on as sent, and blocks the key on stop.
 * The client only ever holds the sentinel; the master key goes nowhere but to /key/*.
 */
class LiteLlmProxyTest {

    static final String MASTER = "sk-master-4f1c9e0d2b7a6358";
    static final String KEY_1 = "sk-kdEXbIqZRwEeEiHwdg7sFA";
    static final String KEY_2 = "sk-Qm9vYmFyYmF6cXV4MTIzNA";
    static final String SENTINEL = "sk-mesa-sentinel";

    @TempDir
    Path dir;
    private FakeLiteLlm litellm;
    private LogCapture logs;

    @BeforeEach
    void start() throws Exception {
        logs = new LogCapture();
        litellm = FakeLiteLlm.https(dir);
        Files.writeString(dir.resolve("litellm.json"), "{\"master_key\": \"" + MASTER + "\"}");
    }

    @AfterEach
    void stop() {
        try {
            litellm.close();
            logs.assertNoneOf(MASTER, KEY_1, KEY_2);
        } finally {
            logs.close();
        }
    }

    /** The proxy's config: interception of the fake LiteLLM, a minted credential for it, and {@code extra}. */
    static String config(FakeLiteLlm litellm, Path dir, String mintExtra, String extra) {
        return "profile: P2\n"
                + "tls:\n  upstream_ca: \"" + litellm.caPem() + "\"\n  intercept: all\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + litellm.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + extra
                + "credentials:\n  - name: llm\n    hosts: [\"localhost\"]\n    ports: [" + litellm.port() + "]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: Authorization\n    format: \"Bearer {secret}\"\n"
                + "    mint:\n      litellm:\n        url: \"" + litellm.url() + "\"\n"
                + "        master_key: \"file:" + dir.resolve("litellm.json") + "#master_key\"\n"
                + "        duration: 8h\n        max_budget: 20.0\n        models: [\"claude-sonnet-4-5\", \"gpt-5\"]\n"
                + "        metadata: {analysis: \"a-17\"}\n" + mintExtra;
    }

    static HttpRequest chat(FakeLiteLlm litellm) {
        return HttpRequest.newBuilder(URI.create(litellm.url() + "/chat/completions"))
                .header("Authorization", "Bearer " + SENTINEL).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\": \"gpt-5\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"))
                .build();
    }

    @Test
    void theMintedKeyIsInjectedTheClientHoldsOnlyTheSentinelAndStopBlocksTheKey() throws Exception {
        litellm.generates(MASTER, 8 * 3600, KEY_1);
        litellm.chat(KEY_1, "{\"id\": \"chatcmpl-1\", \"choices\": [{\"message\": {\"content\": \"hello\"}}]}");
        litellm.blocksAndDeletes();
        try (ProxyFixture proxy = ProxyFixture.start(config(litellm, dir, "        delete_on_stop: true\n", ""))) {
            proxy.awaitReady(Duration.ofSeconds(10));

            HttpResponse<String> response = proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofString());

            assertEquals(200, response.statusCode(), response.body());
            assertTrue(response.body().contains("hello"), response.body());
            List<JsonNode> generated = litellm.bodies("/key/generate");
            assertEquals(1, generated.size(), "one key for the analysis");
            JsonNode asked = generated.get(0);
            assertEquals("8h", asked.path("duration").asText());
            assertEquals(20.0, asked.path("max_budget").asDouble());
            assertEquals("[\"claude-sonnet-4-5\",\"gpt-5\"]", asked.path("models").toString());
            assertEquals("a-17", asked.path("metadata").path("analysis").asText());
            assertTrue(asked.path("key_alias").asText().startsWith("mesa-egress-llm-"), asked.toString());
            assertEquals("Bearer " + MASTER, litellm.requests("/key/generate").get(0).getHeader("Authorization"));
            assertEquals("Bearer " + KEY_1, litellm.requests("/chat/completions").get(0).getHeader("Authorization"),
                    "the gateway got the minted key, never the master key or the sentinel");
            JsonNode audit = proxy.awaitAuditRecord(r -> "/chat/completions".equals(r.path("path").asText()));
            assertEquals("llm", audit.path("credential").asText());
            assertTrue(new String(proxy.server().metrics().scrape())
                    .contains("mesa_egress_credential_mints_total{credential=\"llm\",outcome=\"success\"} 1.0"));

            assertTrue(proxy.server().stop(Duration.ofSeconds(2)));

            List<JsonNode> blocked = litellm.bodies("/key/block");
            assertEquals(1, blocked.size(), "SIGTERM's stop blocks the key");
            assertEquals(KEY_1, blocked.get(0).path("key").asText());
            assertEquals(List.of(KEY_1), litellm.bodies("/key/delete").stream().map(b -> b.path("keys").get(0).asText()).toList());
            for (var r : litellm.requests("/key/")) {
                assertEquals("Bearer " + MASTER, r.getHeader("Authorization"));
            }
            String everything = proxy.auditText() + new String(proxy.server().metrics().scrape()) + response.body();
            assertFalse(everything.contains(MASTER) || everything.contains(KEY_1), "no key in audit, metrics or answers");
        }
    }

    @Test
    void theGatewaysRefusalsPassThroughAsSentAndAreCounted() throws Exception {
        litellm.generates(MASTER, 8 * 3600, KEY_1);
        litellm.blocksAndDeletes();
        try (ProxyFixture proxy = ProxyFixture.start(config(litellm, dir, "", ""))) {
            proxy.awaitReady(Duration.ofSeconds(10));
            String[][] refusals = {{"429", "budget-exceeded", "Budget has been exceeded!"}, {"401", "key-blocked", "Key is blocked"},
                {"401", "key-expired", "Expired Key"}};
            for (String[] refusal : refusals) {
                litellm.chatRefuses(KEY_1, Integer.parseInt(refusal[0]), refusal[1]); // the newest stub answers

                HttpResponse<String> response = proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofString());

                assertEquals(Integer.parseInt(refusal[0]), response.statusCode(), refusal[1]);
                assertTrue(response.body().contains(refusal[2]), "LiteLLM's own answer: " + response.body());
                assertTrue(response.headers().firstValue("X-Mesa-Egress-Reason").isEmpty(), "not the proxy's refusal");
            }
            JsonNode audit = proxy.awaitAuditRecord(r -> r.path("status").asInt() == 429);
            assertEquals("llm", audit.path("credential").asText());
            assertEquals("allow", audit.path("decision").asText());
            // The exchange is counted as it ends, just before its audit record, which can be after
            // the client has read the answer: wait for all three records.
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (proxy.auditRecords().stream().filter(r -> "/chat/completions".equals(r.path("path").asText())).count() < 3
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            String metrics = new String(proxy.server().metrics().scrape());
            assertTrue(metrics.contains("mesa_egress_credential_upstream_refusals_total{credential=\"llm\",status=\"429\"} 1.0"), metrics);
            assertTrue(metrics.contains("mesa_egress_credential_upstream_refusals_total{credential=\"llm\",status=\"401\"} 2.0"), metrics);
        }
    }

    @Test
    void liteLlmDownAtStartIsNotReadyAnd503UntilItMints() throws Exception {
        litellm.generateFails(500, "internal");
        litellm.blocksAndDeletes();
        try (ProxyFixture proxy = ProxyFixture.start(config(litellm, dir, "", ""))) {
            Thread.sleep(500);
            HttpResponse<String> ready = proxy.admin("/readyz");
            assertEquals(503, ready.statusCode());
            assertTrue(ready.body().contains("llm") && ready.body().contains("500") && ready.body().contains("DB not connected"),
                    ready.body());
            HttpResponse<String> refused = proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, refused.statusCode());
            assertEquals("credential_unavailable", refused.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertTrue(litellm.requests("/chat/completions").isEmpty(), "never forwarded without the key, never with the master key");

            litellm.server().resetMappings();
            litellm.generates(MASTER, 8 * 3600, KEY_1);
            litellm.chat(KEY_1, "{\"ok\": true}");
            litellm.blocksAndDeletes();
            proxy.awaitReady(Duration.ofSeconds(15)); // retried with back-off: 1 s, 2 s, 4 s, jittered

            assertEquals(200, proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertTrue(new String(proxy.server().metrics().scrape())
                    .contains("mesa_egress_credential_mints_total{credential=\"llm\",outcome=\"failure\"}"));
        }
    }

    @Test
    void aKeyNearItsExpiryIsReplacedWithTheBudgetLeftAndBothAreBlockedOnStop() throws Exception {
        litellm.generates(MASTER, 3, KEY_1, KEY_2); // the first key lives 3 s: replaced at two thirds of it
        litellm.spent(KEY_1, 1.5);
        litellm.chat(KEY_2, "{\"ok\": 2}");
        litellm.blocksAndDeletes();
        try (ProxyFixture proxy = ProxyFixture.start(config(litellm, dir, "", ""))) {
            proxy.awaitReady(Duration.ofSeconds(10));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (litellm.bodies("/key/generate").size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            List<JsonNode> generated = litellm.bodies("/key/generate");
            assertEquals(2, generated.size(), "a second key before the first expired");
            assertEquals(18.5, generated.get(1).path("max_budget").asDouble(), 1e-9, "20 USD less the 1.5 the first key spent");
            assertFalse(generated.get(0).path("key_alias").asText().equals(generated.get(1).path("key_alias").asText()),
                    "each key its own alias");
            Thread.sleep(200);
            HttpResponse<String> response = proxy.interceptingClient().send(chat(litellm), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            assertEquals("Bearer " + KEY_2, litellm.requests("/chat/completions").get(0).getHeader("Authorization"));

            assertTrue(proxy.server().stop(Duration.ofSeconds(2)));
            List<String> blocked = litellm.bodies("/key/block").stream().map(b -> b.path("key").asText()).toList();
            assertTrue(blocked.contains(KEY_2), "the key in use is blocked on stop: " + blocked);
        }
    }
}
