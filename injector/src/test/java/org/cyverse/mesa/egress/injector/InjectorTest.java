package org.cyverse.mesa.egress.injector;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.PathGlob;
import org.cyverse.mesa.egress.injector.Injection.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the upstream receives, and what is refused, for each way a request can carry a credential. */
class InjectorTest {

    static final String ANTHROPIC = "sk-ant-api03-REAL-abcdef123456";
    static final String GITHUB = "ghs_RealInstallationToken/42+x";
    static final String INTERNAL = "int-real-secret-value-77";
    static final String LEGACY = "legacy-real-secret-99";
    static final String OPENAI = "sk-openai-REAL-xyz987";
    static final String VERDE = "verde-real-secret-55";
    static final String TEAM = "team-real-secret-66";
    static final String BODY = "body-real-secret-11";
    static final String[] ALL = {ANTHROPIC, GITHUB, INTERNAL, LEGACY, OPENAI, VERDE, TEAM, BODY};

    static final String BASIC_SENTINEL = "Basic " + b64("x-access-token:proxy-injected");

    private static ScheduledExecutorService executor;
    private static CredentialStore store;
    private static Injector injector;

    private static CredentialSpec spec(String name, List<String> hosts, Set<Integer> ports, Set<String> methods, List<String> paths,
            String sentinel, String header, String format, boolean plaintext, boolean body) {
        return new CredentialSpec(name, hosts.stream().map(HostPattern::parse).collect(Collectors.toList()), ports, methods,
                paths.stream().map(PathGlob::parse).collect(Collectors.toList()), sentinel, header, format,
                SecretRef.parse("env:" + name.toUpperCase()), plaintext, body);
    }

    @BeforeAll
    static void start() throws Exception {
        List<CredentialSpec> specs = List.of(
                spec("anthropic", List.of("api.anthropic.com"), Set.of(443), Set.of(), List.of(), "sk-ant-sentinel", "x-api-key", "{secret}", false, false),
                spec("github", List.of("github.com", "api.github.com"), Set.of(443), Set.of(), List.of(), "proxy-injected", null, "Bearer {secret}", false, false),
                spec("internal", List.of("*.example.org"), Set.of(443, 8443), Set.of("GET"), List.of("/v1/**"), "int-sentinel", "Authorization", "Bearer {secret}", false, false),
                spec("legacy", List.of("legacy.example.net"), Set.of(80), Set.of(), List.of(), "legacy-sentinel", "X-Token", "{secret}", true, false),
                spec("openai", List.of("api.openai.com"), Set.of(80, 443), Set.of(), List.of(), null, "Authorization", "Bearer {secret}", false, false),
                spec("verde", List.of("llm-api.cyverse.ai"), Set.of(443), Set.of(), List.of(), "verde-sentinel", "Authorization", "Bearer {secret}", false, false),
                spec("team", List.of("llm-api.cyverse.ai"), Set.of(443), Set.of(), List.of(), null, "X-Team-Key", "{secret}", false, false),
                spec("bodyapi", List.of("body.example.com"), Set.of(443), Set.of(), List.of(), "body-sentinel", null, "{secret}", false, true),
                spec("broken", List.of("broken.example.com"), Set.of(443), Set.of(), List.of(), "broken-sentinel", "x-key", "{secret}", false, false));
        Map<String, String> env = Map.of("ANTHROPIC", ANTHROPIC, "GITHUB", GITHUB, "INTERNAL", INTERNAL, "LEGACY", LEGACY,
                "OPENAI", OPENAI, "VERDE", VERDE, "TEAM", TEAM, "BODYAPI", BODY); // BROKEN is missing
        executor = Executors.newSingleThreadScheduledExecutor();
        store = new CredentialStore(specs, Map.of("env", new EnvSecretSource(env)), executor, (c, o) -> { });
        store.start();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!store.notReadyReason().equals("credential broken not resolved yet: environment variable BROKEN is not set")) {
            assertTrue(System.nanoTime() < deadline, store.notReadyReason());
            Thread.sleep(10);
        }
        injector = new Injector(specs, store);
    }

    @AfterAll
    static void stop() {
        store.close();
        executor.shutdownNow();
    }

    static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(UTF_8));
    }

    static String pct(String text) {
        StringBuilder sb = new StringBuilder();
        for (byte b : text.getBytes(UTF_8)) {
            sb.append(String.format("%%%02X", b & 0xff));
        }
        return sb.toString();
    }

    static OutgoingRequest request(boolean tls, String host, int port, String method, String pathAndQuery, String... headers) {
        List<Map.Entry<String, String>> list = new ArrayList<>();
        for (int i = 0; i < headers.length; i += 2) {
            list.add(Map.entry(headers[i], headers[i + 1]));
        }
        try {
            return new OutgoingRequest(tls, Destination.parse(host, port), method, pathAndQuery, list);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static OutgoingRequest https(String host, String pathAndQuery, String... headers) {
        return request(true, host, 443, "GET", pathAndQuery, headers);
    }

    private static Injection apply(OutgoingRequest request) {
        Injection injection = injector.apply(request);
        Leaks.assertClean(injection.detail(), ALL);
        Leaks.assertClean(injection.toString(), ALL);
        return injection;
    }

    private static List<String> values(Injection injection, String name) {
        return injection.headers().stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).collect(Collectors.toList());
    }

    // ---- injection ----

    @Test
    void withoutAClientSentinelTheHeaderIsAdded() {
        Injection injection = apply(https("api.anthropic.com", "/v1/messages", "content-type", "application/json"));

        assertEquals(Outcome.INJECTED, injection.outcome());
        assertEquals("anthropic", injection.credential());
        assertEquals(List.of(Map.entry("content-type", "application/json"), Map.entry("x-api-key", ANTHROPIC)), injection.headers());
        assertEquals("/v1/messages", injection.pathAndQuery());
        assertEquals(Map.of(), injection.bodySubstitution(), "bodies are left alone unless the credential opts in");
    }

    @Test
    void theClientsSentinelIsReplacedAndTheHeaderFormatted() {
        Injection injection = apply(https("api.openai.com", "/v1/chat", "Authorization", "Bearer whatever-the-agent-had"));
        assertEquals(List.of(Map.entry("Authorization", "Bearer " + OPENAI)), injection.headers());

        Injection anthropic = apply(https("api.anthropic.com", "/v1/messages", "x-api-key", "sk-ant-sentinel", "accept", "*/*"));
        assertEquals(List.of(Map.entry("x-api-key", ANTHROPIC), Map.entry("accept", "*/*")), anthropic.headers());
    }

    @Test
    void theHeaderOverwritesTheClientsInAnyCaseAndOnlyOneRemains() {
        Injection injection = apply(https("api.anthropic.com", "/v1/messages",
                "X-API-KEY", "sk-ant-sentinel", "accept", "*/*", "x-Api-Key", "second-copy"));

        assertEquals(List.of(Map.entry("x-api-key", ANTHROPIC), Map.entry("accept", "*/*")), injection.headers());
    }

    @Test
    void gitBasicCredentialsAreDecodedReplacedAndReEncoded() {
        Injection injection = apply(https("github.com", "/cyverse/repo.git/info/refs?service=git-upload-pack",
                "Authorization", BASIC_SENTINEL));

        assertEquals(Outcome.INJECTED, injection.outcome());
        assertEquals("github", injection.credential());
        assertEquals(List.of("Basic " + b64("x-access-token:" + GITHUB)), values(injection, "Authorization"));
    }

    @Test
    void aSentinelInsideAnotherHeaderValueIsReplaced() {
        Injection injection = apply(https("api.github.com", "/user", "Authorization", "token proxy-injected"));

        assertEquals(List.of("token " + GITHUB), values(injection, "Authorization"));
    }

    @Test
    void querySentinelsPlainAndPercentEncodedGetThePercentEncodedSecret() {
        String encoded = "ghs_RealInstallationToken%2F42%2Bx";

        assertEquals("/search?access_token=" + encoded + "&q=a%20b",
                apply(https("api.github.com", "/search?access_token=proxy-injected&q=a%20b")).pathAndQuery());
        assertEquals("/search?access_token=" + encoded,
                apply(https("api.github.com", "/search?access_token=proxy%2Dinjected")).pathAndQuery());
        assertEquals("/search?access_token=" + encoded,
                apply(https("api.github.com", "/search?access_token=" + pct("proxy-injected"))).pathAndQuery());
    }

    @Test
    void pathSentinelsPlainAndPercentEncodedAreReplaced() {
        String encoded = "ghs_RealInstallationToken%2F42%2Bx";

        assertEquals("/tokens/" + encoded + "/info", apply(https("api.github.com", "/tokens/proxy-injected/info")).pathAndQuery());
        assertEquals("/tokens/" + encoded + "/info", apply(https("api.github.com", "/tokens/proxy%2dinjected/info")).pathAndQuery());
        assertEquals("/caf\u00e9/%C3%A9/" + encoded, apply(https("api.github.com", "/caf\u00e9/%C3%A9/proxy-injected")).pathAndQuery(),
                "text around the sentinel stays as the client wrote it");
    }

    @Test
    void twoCredentialsInScopeAreBothAppliedAndTheFirstIsNamed() {
        Injection injection = apply(https("llm-api.cyverse.ai", "/v1/chat/completions", "Authorization", "Bearer verde-sentinel"));

        assertEquals(Outcome.INJECTED, injection.outcome());
        assertEquals("verde", injection.credential());
        assertEquals(List.of(Map.entry("Authorization", "Bearer " + VERDE), Map.entry("X-Team-Key", TEAM)), injection.headers());
        assertEquals("injected verde, team", injection.detail());
    }

    @Test
    void bodySubstitutionIsHandedOverForCredentialsThatOptIn() {
        Injection injection = apply(https("body.example.com", "/v1/run"));

        assertEquals(Outcome.INJECTED, injection.outcome());
        assertEquals(Map.of("body-sentinel", Secret.of(BODY)), injection.bodySubstitution());
    }

    @Test
    void plainHttpInjectsOnlyWhereTheCredentialAllowsIt() {
        Injection legacy = apply(request(false, "legacy.example.net", 80, "GET", "/api", "X-Token", "legacy-sentinel"));
        assertEquals(Outcome.INJECTED, legacy.outcome());
        assertEquals(List.of(Map.entry("X-Token", LEGACY)), legacy.headers());

        Injection legacyNoSentinel = apply(request(false, "legacy.example.net", 80, "GET", "/api"));
        assertEquals(List.of(Map.entry("X-Token", LEGACY)), legacyNoSentinel.headers(), "allow_plaintext: the header too");

        Injection openai = apply(request(false, "api.openai.com", 80, "GET", "/v1/models", "accept", "*/*"));
        assertEquals(Outcome.UNCHANGED, openai.outcome(), "in scope, but a credential is never added over plain http");
        assertNull(openai.credential());
        assertEquals(List.of(Map.entry("accept", "*/*")), openai.headers());
    }

    @Test
    void requestsNoCredentialCoversGoOutAsTheyCame() {
        OutgoingRequest request = https("pypi.org", "/simple/requests/?x=1", "Authorization", "Bearer someone-elses", "accept", "*/*");
        Injection injection = apply(request);

        assertEquals(Outcome.UNCHANGED, injection.outcome());
        assertFalse(injection.refused());
        assertEquals(request.headers(), injection.headers());
        assertEquals(request.pathAndQuery(), injection.pathAndQuery());
    }

    @Test
    void aRequestOutsideTheMethodOrPathScopeWithoutASentinelIsLeftAlone() {
        assertEquals(Outcome.UNCHANGED, apply(request(true, "a.example.org", 443, "POST", "/v1/items")).outcome());
        assertEquals(Outcome.UNCHANGED, apply(https("a.example.org", "/admin")).outcome());
        assertEquals(List.of("Bearer " + INTERNAL), values(apply(https("a.example.org", "/v1/items")), "Authorization"));
    }

    // ---- refusals ----

    static Stream<Arguments> refusals() {
        return Stream.of(
                // a sentinel outside its scope
                Arguments.of("sentinel to another allowed host", https("github.com", "/", "x-api-key", "sk-ant-sentinel"), Outcome.MISMATCH, "anthropic", "host not in its hosts"),
                Arguments.of("sentinel in a query to an attacker", https("attacker.example.com", "/c?k=sk-ant-sentinel"), Outcome.MISMATCH, "anthropic", "in the query"),
                Arguments.of("sentinel percent-encoded in a path", https("attacker.example.com", "/c/" + pct("sk-ant-sentinel")), Outcome.MISMATCH, "anthropic", "path (percent-decoded)"),
                Arguments.of("sentinel in Basic credentials", https("api.anthropic.com", "/", "Authorization", BASIC_SENTINEL), Outcome.MISMATCH, "github", "Basic credentials"),
                Arguments.of("sentinel to another port", request(true, "a.example.org", 9443, "GET", "/v1/x", "Authorization", "Bearer int-sentinel"), Outcome.MISMATCH, "internal", "port 9443"),
                Arguments.of("sentinel with another method", request(true, "a.example.org", 443, "DELETE", "/v1/x", "Authorization", "Bearer int-sentinel"), Outcome.MISMATCH, "internal", "method DELETE"),
                Arguments.of("sentinel to another path", https("a.example.org", "/admin", "Authorization", "Bearer int-sentinel"), Outcome.MISMATCH, "internal", "path not covered"),
                Arguments.of("sentinel through a dot segment", https("a.example.org", "/v1/../admin", "Authorization", "Bearer int-sentinel"), Outcome.MISMATCH, "internal", "path not covered"),
                Arguments.of("sentinel to the apex of a wildcard", https("example.org", "/v1/x", "Authorization", "Bearer int-sentinel"), Outcome.MISMATCH, "internal", "host"),
                Arguments.of("sentinel over plain http to another host", request(false, "evil.example.com", 80, "GET", "/", "x", "sk-ant-sentinel"), Outcome.MISMATCH, "anthropic", "evil.example.com:80"),
                // a real secret from the client
                Arguments.of("real key in a header, to its own host", https("api.anthropic.com", "/v1/messages", "x-api-key", ANTHROPIC), Outcome.SECRET_LEAK, "anthropic", "header x-api-key"),
                Arguments.of("real token in Basic credentials", https("github.com", "/r.git", "Authorization", "Basic " + b64("x-access-token:" + GITHUB)), Outcome.SECRET_LEAK, "github", "Basic credentials"),
                Arguments.of("real key in a query", https("pypi.org", "/?k=" + ANTHROPIC), Outcome.SECRET_LEAK, "anthropic", "the query"),
                Arguments.of("real key percent-encoded in a query", https("pypi.org", "/?k=" + pct(ANTHROPIC)), Outcome.SECRET_LEAK, "anthropic", "query (percent-decoded)"),
                Arguments.of("real token percent-encoded in a path", https("pypi.org", "/x/ghs_RealInstallationToken%2F42%2Bx"), Outcome.SECRET_LEAK, "github", "path (percent-decoded)"),
                Arguments.of("real key in a Referer URL", https("pypi.org", "/", "Referer", "https://x/?k=" + pct(OPENAI)), Outcome.SECRET_LEAK, "openai", "header Referer (percent-decoded)"),
                Arguments.of("real key as a header name", https("pypi.org", "/", OPENAI, "1"), Outcome.SECRET_LEAK, "openai", "a header name"),
                Arguments.of("real key as a subdomain", https(INTERNAL + ".example.org", "/v1/x"), Outcome.SECRET_LEAK, "internal", "host name"),
                Arguments.of("a leak outranks a mismatch", https("evil.example.com", "/?a=sk-ant-sentinel", "x", LEGACY), Outcome.SECRET_LEAK, "legacy", "header x"),
                // plain http
                Arguments.of("sentinel over plain http", request(false, "api.anthropic.com", 80, "GET", "/v1/messages", "x-api-key", "sk-ant-sentinel"), Outcome.PLAINTEXT, "anthropic", "plain http"),
                Arguments.of("sentinel over plain http on a scoped port", request(false, "a.example.org", 8443, "GET", "/v1/x", "Authorization", "Bearer int-sentinel"), Outcome.PLAINTEXT, "internal", "plain http"),
                Arguments.of("plaintext outranks unavailable", request(false, "broken.example.com", 80, "GET", "/", "x-key", "broken-sentinel"), Outcome.PLAINTEXT, "broken", "plain http"),
                // no value
                Arguments.of("no value, no sentinel", https("broken.example.com", "/"), Outcome.UNAVAILABLE, "broken", "no valid value"),
                Arguments.of("no value, with sentinel", https("broken.example.com", "/", "x-key", "broken-sentinel"), Outcome.UNAVAILABLE, "broken", "no valid value"),
                Arguments.of("a mismatch outranks unavailable", https("api.anthropic.com", "/", "x", "broken-sentinel"), Outcome.MISMATCH, "broken", "host"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusesAndNamesTheCredential(String name, OutgoingRequest request, Outcome outcome, String credential, String detail) {
        Injection injection = apply(request);

        assertEquals(outcome, injection.outcome(), injection.detail());
        assertEquals(credential, injection.credential());
        assertTrue(injection.refused());
        assertTrue(injection.detail().contains(detail), injection.detail());
        assertNull(injection.headers(), "nothing to send");
        assertNull(injection.pathAndQuery());
    }

    // ---- interception and responses ----

    @Test
    void credentialHostsAndPortsAreWhatTheProxyIntercepts() throws Exception {
        assertTrue(injector.hasCredentialFor(Destination.parse("api.anthropic.com", 443)));
        assertTrue(injector.hasCredentialFor(Destination.parse("b.example.org", 8443)));
        assertFalse(injector.hasCredentialFor(Destination.parse("api.anthropic.com", 8443)));
        assertFalse(injector.hasCredentialFor(Destination.parse("example.org", 443)), "*.example.org does not cover the apex");
        assertFalse(injector.hasCredentialFor(Destination.parse("pypi.org", 443)));
    }

    @Test
    void anEchoedSecretBecomesItsSentinelOrARedactionMark() {
        StreamReplacer scrubber = injector.responseScrubber();
        byte[] body = ("{\"echo\":\"" + ANTHROPIC + "\",\"auth\":\"Bearer " + OPENAI + "\"}").getBytes(UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < body.length; i += 7) { // cut through both secrets
            out.writeBytes(scrubber.feed(body, i, Math.min(7, body.length - i)));
        }
        out.writeBytes(scrubber.finish());

        assertEquals("{\"echo\":\"sk-ant-sentinel\",\"auth\":\"Bearer [redacted:openai]\"}", out.toString(UTF_8));
        assertEquals("Bearer [redacted:openai], token proxy-injected", injector.scrubHeaderValue("Bearer " + OPENAI + ", token " + GITHUB));
        assertEquals("no secret here", injector.scrubHeaderValue("no secret here"));
    }

    @Test
    void aSecretComesBackAsItsSentinelInEveryFormTheProxyWroteItIn() throws Exception {
        // git's Basic credentials: the proxy writes base64("x-access-token:" + the real token).
        Injection git = injector.apply(new OutgoingRequest(true, Destination.parse("github.com", 443), "GET",
                "/o/r.git/info/refs?service=git-upload-pack", List.of(Map.entry("Authorization", BASIC_SENTINEL))));
        String written = git.headers().stream().filter(h -> h.getKey().equals("Authorization")).findFirst().orElseThrow().getValue();
        assertEquals("Basic " + b64("x-access-token:" + GITHUB), written);
        String encoded = PercentText.encode(GITHUB);
        assertEquals("ghs_RealInstallationToken%2F42%2Bx", encoded, "the form the proxy writes into a path or query");

        String echo = "auth=" + written.substring(6) + " path=/r/" + encoded + " lower=" + SecretForms.lowerHex(encoded)
                + " json=\"" + SecretForms.json(GITHUB, true) + "\" plain=" + GITHUB;
        byte[] body = echo.getBytes(UTF_8);
        StreamReplacer scrubber = injector.responseScrubber();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < body.length; i += 5) {
            out.writeBytes(scrubber.feed(body, i, Math.min(5, body.length - i)));
        }
        out.writeBytes(scrubber.finish());

        assertEquals("auth=" + BASIC_SENTINEL.substring(6) + " path=/r/proxy-injected lower=proxy-injected json=\"proxy-injected\""
                + " plain=proxy-injected", out.toString(UTF_8), "the client gets back what it sent");
        assertEquals("Location: /next?t=proxy-injected&x=1", injector.scrubHeaderValue("Location: /next?t=ghs_RealInstallation%54oken/42%2bx&x=1"),
                "a header value with the secret in any mix of plain and encoded characters");
        assertEquals(written.replace(written.substring(6), BASIC_SENTINEL.substring(6)), injector.scrubHeaderValue(written));
    }

    @Test
    void aWrittenBasicFormIsScrubbedJsonEscapedAndIsWithheldFromAuditFields() throws Exception {
        // A user name whose written base64 holds a '/', which a PHP-style JSON echo writes as '\/'.
        String user = null;
        for (int i = 0; user == null && i < 1000; i++) {
            if (b64("u" + i + ":" + GITHUB).contains("/")) {
                user = "u" + i;
            }
        }
        String sent = b64(user + ":proxy-injected");
        injector.apply(new OutgoingRequest(true, Destination.parse("github.com", 443), "GET", "/x.git/info/refs",
                List.of(Map.entry("Authorization", "Basic " + sent))));
        String written = b64(user + ":" + GITHUB);
        String escaped = written.replace("/", "\\/");
        StreamReplacer scrubber = injector.responseScrubber();
        byte[] body = ("{\"auth\":\"Basic " + escaped + "\"}").getBytes(UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(scrubber.feed(body, 0, body.length));
        out.writeBytes(scrubber.finish());
        assertEquals("{\"auth\":\"Basic " + sent.replace("/", "\\/") + "\"}", out.toString(UTF_8));
        assertEquals("[redacted:github]", injector.redactField("/echo/" + written));
        assertEquals("see [redacted:github]", injector.redact("see " + written));
    }
}
