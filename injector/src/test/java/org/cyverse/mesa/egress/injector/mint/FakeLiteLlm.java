package org.cyverse.mesa.egress.injector.mint;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoTestPki;

/**
 * WireMock playing a LiteLLM proxy on loopback over HTTPS (a server certificate for localhost and
 * 127.0.0.1 from a fresh test CA, {@link #caPem()}), answering with the fixtures under
 * {@code src/test/resources/litellm/} (their sources: that folder's README). The same server is
 * the gateway ({@code /chat/completions}) and its admin API ({@code /key/*}), as LiteLLM is.
 * Shared with proxy-core's tests through the injector test-jar.
 */
public final class FakeLiteLlm implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MINTING = "minting";

    private final WireMockServer server;
    private final Path caPem;

    private FakeLiteLlm(WireMockServer server, Path caPem) {
        this.server = server;
        this.caPem = caPem;
    }

    public static FakeLiteLlm https(Path dir) throws Exception {
        OpenBaoTestPki pki = OpenBaoTestPki.create(dir);
        WireMockServer server = new WireMockServer(pki.tls(options().bindAddress("127.0.0.1").httpDisabled(true).dynamicHttpsPort()));
        server.start();
        return new FakeLiteLlm(server, pki.caPem());
    }

    public WireMockServer server() {
        return server;
    }

    public int port() {
        return server.httpsPort();
    }

    /** {@code https://localhost:PORT}, the LiteLLM base URL. */
    public String url() {
        return "https://localhost:" + port();
    }

    public Path caPem() {
        return caPem;
    }

    /**
     * {@code POST /key/generate} with {@code master} answers {@code keys} in turn (the last one
     * again after that), each expiring {@code lifetimeSeconds} from the answer.
     */
    public void generates(String master, long lifetimeSeconds, String... keys) {
        for (int i = 0; i < keys.length; i++) {
            String state = i == 0 ? Scenario.STARTED : "key-" + i;
            server.stubFor(post(urlPathEqualTo("/key/generate")).inScenario(MINTING).whenScenarioStateIs(state)
                    .withHeader("Authorization", equalTo("Bearer " + master))
                    .willReturn(generated(keys[i], lifetimeSeconds))
                    .willSetStateTo(i + 1 < keys.length ? "key-" + (i + 1) : state));
        }
    }

    /** {@code POST /key/generate} answers {@code status} with {@code fixture} (e.g. LiteLLM's database down). */
    public void generateFails(int status, String fixture) {
        server.stubFor(post(urlPathEqualTo("/key/generate")).willReturn(json(status, fixture("error-" + fixture + ".json"))));
    }

    /** {@code /key/block} and {@code /key/delete} answer as LiteLLM does. */
    public void blocksAndDeletes() {
        server.stubFor(post(urlPathEqualTo("/key/block")).willReturn(json(200, fixture("key-block.json")
                .replace("{{token}}", "0".repeat(64)).replace("{{key_tail}}", "abcd").replace("{{alias}}", "blocked"))));
        server.stubFor(post(urlPathEqualTo("/key/delete")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withTransformers("response-template")
                .withBody(fixture("key-delete.json").replace("{{key}}", "{{jsonPath request.body '$.keys[0]'}}"))));
    }

    /** {@code /key/block} answers 500 (LiteLLM's database down). */
    public void blockFails() {
        server.stubFor(post(urlPathEqualTo("/key/block")).willReturn(json(500, fixture("error-internal.json"))));
    }

    /** {@code GET /key/info?key=KEY} answers that {@code key} spent {@code spend} USD. */
    public void spent(String key, double spend) {
        server.stubFor(get(urlPathEqualTo("/key/info")).withQueryParam("key", equalTo(key)).willReturn(json(200, fixture("key-info.json")
                .replace("{{key}}", key).replace("{{key_tail}}", key.substring(key.length() - 4)).replace("{{alias}}", "any")
                .replace("{{spend}}", Double.toString(spend)).replace("{{max_budget}}", "null")
                .replace("{{expires_offset}}", Instant.now().plus(1, ChronoUnit.HOURS).atOffset(ZoneOffset.UTC).toString()))));
    }

    /** {@code POST /chat/completions} with {@code key} answers 200 with {@code body} (the gateway). */
    public void chat(String key, String body) {
        server.stubFor(post(urlPathEqualTo("/chat/completions")).withHeader("Authorization", equalTo("Bearer " + key))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json").withBody(body)));
    }

    /** {@code POST /chat/completions} with {@code key} streams SSE events for about {@code millis}. */
    public void chatStreams(String key, int events, int millis) {
        StringBuilder sse = new StringBuilder();
        for (int i = 0; i < events; i++) {
            sse.append("data: {\"choices\":[{\"delta\":{\"content\":\"token ").append(i).append("\"}}]}\n\n");
        }
        server.stubFor(post(urlPathEqualTo("/chat/completions")).withHeader("Authorization", equalTo("Bearer " + key))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "text/event-stream").withBody(sse.toString())
                        .withChunkedDribbleDelay(events, millis)));
    }

    /** {@code POST /chat/completions} with {@code key} answers LiteLLM's refusal {@code fixture} with {@code status}. */
    public void chatRefuses(String key, int status, String fixture) {
        server.stubFor(post(urlPathEqualTo("/chat/completions")).withHeader("Authorization", equalTo("Bearer " + key))
                .willReturn(json(status, fixture("error-" + fixture + ".json"))));
    }

    /** The JSON bodies of the requests to {@code path}, in order. */
    public List<JsonNode> bodies(String path) {
        return requests(path).stream().map(r -> {
            try {
                return JSON.readTree(r.getBodyAsString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).toList();
    }

    /** The requests to {@code path}, in order. */
    public List<LoggedRequest> requests(String path) {
        return server.getAllServeEvents().stream().map(e -> e.getRequest()).filter(r -> r.getUrl().startsWith(path))
                .sorted((a, b) -> a.getLoggedDate().compareTo(b.getLoggedDate())).toList();
    }

    private ResponseDefinitionBuilder generated(String key, long lifetimeSeconds) {
        // The alias, models, metadata and budget are LiteLLM's echo of the request (response templating).
        Instant now = Instant.now();
        String body = fixture("key-generate.json")
                .replace("\"{{alias}}\"", "{{{toJson (jsonPath request.body '$.key_alias')}}}")
                .replace("{{models}}", "{{#if (jsonPath request.body '$.models')}}{{{toJson (jsonPath request.body '$.models')}}}{{else}}[]{{/if}}")
                .replace("{{metadata}}", "{{{toJson (jsonPath request.body '$.metadata')}}}")
                .replace("{{max_budget}}", "{{#if (jsonPath request.body '$.max_budget')}}{{jsonPath request.body '$.max_budget'}}{{else}}null{{/if}}")
                .replace("{{key}}", key).replace("{{key_tail}}", key.substring(key.length() - 4))
                .replace("{{token}}", sha256(key))
                .replace("{{expires}}", DateTimeFormatter.ISO_INSTANT.format(now.plusSeconds(lifetimeSeconds).truncatedTo(ChronoUnit.MICROS)))
                .replace("{{now}}", DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.MILLIS)));
        return aResponse().withStatus(200).withHeader("Content-Type", "application/json").withTransformers("response-template").withBody(body);
    }

    private static ResponseDefinitionBuilder json(int status, String body) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody(body);
    }

    static String fixture(String name) {
        try (InputStream in = FakeLiteLlm.class.getResourceAsStream("/litellm/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture litellm/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** For a test's assertions: the JSON of {@code text}. */
    public static Map<String, Object> map(String text) throws IOException {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = JSON.readValue(text, Map.class);
        return m;
    }

    @Override
    public void close() {
        server.stop();
    }
}
