package org.cyverse.mesa.egress.injector.github;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.patch;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.matching.StringValuePattern;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoTestPki;

/**
 * WireMock playing GitHub's REST API ({@code https://api.github.com}) for a GitHub App's
 * installation tokens, on loopback over HTTPS (a server certificate for localhost and 127.0.0.1
 * from a fresh test CA, {@link #caPem()}). It answers with the fixtures under
 * {@code src/test/resources/github/}, shaped as GitHub's REST documentation gives them (their
 * sources: that folder's README).
 *
 * <p>The fake checks only that a JWT-shaped bearer reaches the minting endpoint, as GitHub
 * refuses anything else with 401; whether the JWT is the App's is for the test to check, with
 * {@link AppJwt#verify} on {@link #requests(String)}. Installation ids nobody set up answer 404,
 * as GitHub answers for an installation the App does not have. Shared with proxy-core's tests
 * through the injector test-jar.
 */
public final class FakeGitHub implements AutoCloseable {

    /** The installation's account, owner of the repositories a minting echoes: the docs' examples' own. */
    public static final String DEFAULT_ACCOUNT = "octocat";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** What GitHub sends as the type of every JSON answer. */
    private static final String CONTENT_TYPE = "application/json; charset=utf-8";
    private static final String MINT = "github-installation-token";
    private static final String COMPARE = "github-compare";
    private static final String WRITE = "github-write";
    /** Three base64url parts: what GitHub can at least try to decode as a JWT. */
    private static final String BEARER_JWT = "Bearer [A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+";
    /** GitHub's time format: UTC to the second, {@code 2016-07-11T22:14:10Z}. */
    private static final DateTimeFormatter GITHUB_TIME = DateTimeFormatter.ISO_INSTANT;

    // WireMock serves the stub of the lowest priority number that matches; among equals, the newest.
    private static final int ANSWER = 1;
    private static final int REFUSAL = 2;
    private static final int UNKNOWN = 9;

    private final WireMockServer server;
    private final Path caPem;
    /** Shared with the server's {@link InstallationTokens}, which answers from them. */
    private final Map<Long, Minting> minting;
    private final AtomicReference<String> account;
    /** Shared with the server's {@link Comparisons}: how each repository compares two commits. */
    private final Map<String, Comparer> comparers;

    /** How a test's repository compares {@code base} with {@code head}, as the compare API reports it. */
    @FunctionalInterface
    public interface Comparer {
        /** The comparison, or {@code null} when the repository does not have one of the commits. */
        Comparison compare(String base, String head) throws Exception;
    }

    /** What the compare API reports: {@code status} ({@code ahead}, {@code behind}, {@code identical}, {@code diverged}) and counts. */
    public record Comparison(String status, int aheadBy, int behindBy, String mergeBase) {}

    private FakeGitHub(WireMockServer server, Path caPem, Map<Long, Minting> minting, AtomicReference<String> account,
            Map<String, Comparer> comparers) {
        this.comparers = comparers;
        this.server = server;
        this.caPem = caPem;
        this.minting = minting;
        this.account = account;
    }

    /**
     * Starts the fake on an ephemeral HTTPS port of 127.0.0.1, its test CA and keystore written
     * under {@code dir/github} (a folder of its own, so that other fakes may share {@code dir}).
     */
    public static FakeGitHub https(Path dir) throws Exception {
        OpenBaoTestPki pki = OpenBaoTestPki.create(Files.createDirectories(dir.resolve("github")));
        Map<Long, Minting> minting = new ConcurrentHashMap<>();
        AtomicReference<String> account = new AtomicReference<>(DEFAULT_ACCOUNT);
        Map<String, Comparer> comparers = new ConcurrentHashMap<>();
        WireMockServer server = new WireMockServer(pki.tls(options().bindAddress("127.0.0.1").httpDisabled(true).dynamicHttpsPort())
                .extensions(new InstallationTokens(minting, account), new Comparisons(comparers), new Writes()));
        server.start();
        // GitHub answers 404 for an installation the App does not have.
        server.stubFor(post(urlPathMatching("/app/installations/[^/]+/access_tokens")).atPriority(UNKNOWN)
                .willReturn(json(404, fixture("error-installation-not-found.json"))));
        return new FakeGitHub(server, pki.caPem(), minting, account, comparers);
    }

    /** The WireMock server, for what this class does not wrap. */
    public WireMockServer server() {
        return server;
    }

    /** The HTTPS port on 127.0.0.1. */
    public int port() {
        return server.httpsPort();
    }

    /** {@code https://localhost:PORT}, the API base URL, as {@code https://api.github.com} is. */
    public String url() {
        return "https://localhost:" + port();
    }

    /** The PEM of the test CA that signed the server's certificate. */
    public Path caPem() {
        return caPem;
    }

    /**
     * The installations' account (default {@value #DEFAULT_ACCOUNT}): the owner of the
     * repositories that minting echoes.
     */
    public void account(String login) {
        account.set(login);
    }

    /** {@link #mints(long, Duration, String...)} with GitHub's lifetime, one hour. */
    public void mints(long installationId, String... tokens) {
        mints(installationId, Duration.ofHours(1), tokens);
    }

    /**
     * {@code POST /app/installations/{installationId}/access_tokens} with a JWT-shaped bearer
     * answers 201 with {@code installation-token.json}: {@code token} takes each of
     * {@code tokens} in turn (the last one again after that), {@code expires_at} is
     * {@code lifetime} after the answer (in whole seconds, as GitHub writes it), and
     * {@code permissions} and {@code repositories} echo what the request asked, as GitHub grants
     * a request within the installation's. A request that names no repository gets
     * {@code repository_selection: "all"} and no {@code repositories}; one that names none of
     * its permissions gets the fixture's ({@code issues: write, contents: read}). Without a
     * JWT the answer is GitHub's 401 "A JSON web token could not be decoded". Calling this
     * again for the same installation starts its tokens over.
     */
    public void mints(long installationId, Duration lifetime, String... tokens) {
        if (tokens.length == 0) {
            throw new IllegalArgumentException("mints needs at least one token");
        }
        minting.put(installationId, new Minting(List.of(tokens), lifetime));
        String path = accessTokens(installationId);
        server.stubFor(post(urlPathEqualTo(path)).atPriority(ANSWER).withHeader("Authorization", matching(BEARER_JWT))
                .willReturn(aResponse().withTransformers(MINT).withTransformerParameter("installation", Long.toString(installationId))));
        server.stubFor(post(urlPathEqualTo(path)).atPriority(REFUSAL).willReturn(json(401, fixture("error-jwt-undecodable.json"))));
    }

    /**
     * {@code POST /app/installations/{installationId}/access_tokens} answers {@code status} with
     * the error {@code fixture}, named as in the folder ({@code error-validation.json}) or without
     * its {@code error-} and {@code .json} ({@code validation}). It overrides {@link #mints} for
     * that installation until {@code mints} is called again.
     */
    public void refusesMinting(long installationId, int status, String fixture) {
        String name = fixture.endsWith(".json") ? fixture : "error-" + fixture + ".json";
        server.stubFor(post(urlPathEqualTo(accessTokens(installationId))).atPriority(ANSWER).willReturn(json(status, fixture(name))));
    }

    /**
     * {@code DELETE /installation/token} answers 204, whatever the token: which token the
     * proxy revoked is for the test to read in {@link #requests(String)}.
     */
    public void revokes() {
        server.stubFor(delete(urlPathEqualTo("/installation/token")).atPriority(ANSWER).willReturn(aResponse().withStatus(204)));
    }

    /**
     * {@code GET /repos/{owner}/{repo}} answers 200 with {@code repository.json} (made
     * {@code owner/repo}) when {@code Authorization} is {@code Bearer TOKEN} or {@code token TOKEN},
     * else 401 "Bad credentials", as GitHub does. Calling it for more tokens accepts each.
     */
    public void repository(String owner, String repo, String token) {
        String path = "/repos/" + owner + "/" + repo;
        String body = fill(fixture("repository.json"), Map.of("owner", owner, "repo", repo));
        server.stubFor(get(urlPathEqualTo(path)).atPriority(ANSWER).withHeader("Authorization", authorizedBy(token))
                .willReturn(api(body)));
        server.stubFor(get(urlPathEqualTo(path)).atPriority(REFUSAL).willReturn(json(401, fixture("error-bad-credentials.json"))));
    }

    /**
     * {@code GET /repos/{owner}/{repo}/compare/{base}...{head}} answers 200 with {@code compare.json}
     * filled from {@code comparer} when {@code Authorization} is {@code TOKEN}'s, 404 "Not Found" when
     * the comparer knows no such commit, else 401, as GitHub does.
     */
    public void compares(String owner, String repo, String token, Comparer comparer) {
        comparers.put(owner + "/" + repo, comparer);
        String path = "/repos/" + owner + "/" + repo + "/compare/[0-9a-f]{40}\\.\\.\\.[0-9a-f]{40}";
        server.stubFor(get(urlPathMatching(path)).atPriority(ANSWER).withHeader("Authorization", authorizedBy(token))
                .willReturn(aResponse().withTransformers(COMPARE).withTransformerParameter("repository", owner + "/" + repo)));
        server.stubFor(get(urlPathMatching(path)).atPriority(REFUSAL).willReturn(json(401, fixture("error-bad-credentials.json"))));
    }

    /**
     * The writes the GitHub MCP server's tools make, for {@code token} (else 401): {@code POST
     * git/refs} 201 and {@code PATCH git/refs/...} 200 with {@code ref.json} (the ref asked),
     * {@code PUT contents/{path}} 201 and {@code DELETE} 200 with {@code file-commit.json} (the
     * branch asked). What they write is not kept: the test checks what reached GitHub
     * ({@link #requests}).
     */
    public void writes(String owner, String repo, String token) {
        String base = "/repos/" + owner + "/" + repo;
        for (var stub : List.of(post(urlPathEqualTo(base + "/git/refs")), patch(urlPathMatching(base + "/git/refs/.+")),
                put(urlPathMatching(base + "/contents/.+")), delete(urlPathMatching(base + "/contents/.+")))) {
            server.stubFor(stub.atPriority(ANSWER).withHeader("Authorization", authorizedBy(token))
                    .willReturn(aResponse().withTransformers(WRITE).withTransformerParameter("owner", owner)
                            .withTransformerParameter("repo", repo)));
        }
        for (var stub : List.of(post(urlPathEqualTo(base + "/git/refs")), patch(urlPathMatching(base + "/git/refs/.+")),
                put(urlPathMatching(base + "/contents/.+")), delete(urlPathMatching(base + "/contents/.+")))) {
            server.stubFor(stub.atPriority(REFUSAL).willReturn(json(401, fixture("error-bad-credentials.json"))));
        }
    }

    /**
     * {@code POST /graphql} answers 200 {@code {"data": {}}} for {@code token} (GitHub's GraphQL
     * answer shape, "Forming calls with GraphQL": a {@code data} object), else 401 "Bad
     * credentials". The fake executes nothing: the test checks what reached it ({@link #requests}).
     */
    public void graphql(String token) {
        server.stubFor(post(urlPathEqualTo("/graphql")).atPriority(ANSWER).withHeader("Authorization", authorizedBy(token))
                .willReturn(api("{\"data\":{}}")));
        server.stubFor(post(urlPathEqualTo("/graphql")).atPriority(REFUSAL).willReturn(json(401, fixture("error-bad-credentials.json"))));
    }

    /** {@code GET /rate_limit} answers 200 with {@code rate-limit.json} for {@code token}, else 401, as {@link #repository} does. */
    public void rateLimit(String token) {
        server.stubFor(get(urlPathEqualTo("/rate_limit")).atPriority(ANSWER).withHeader("Authorization", authorizedBy(token))
                .willReturn(api(fixture("rate-limit.json"))));
        server.stubFor(get(urlPathEqualTo("/rate_limit")).atPriority(REFUSAL).willReturn(json(401, fixture("error-bad-credentials.json"))));
    }

    /** The requests whose URL starts with {@code pathPrefix}, oldest first. */
    public List<LoggedRequest> requests(String pathPrefix) {
        // WireMock lists the newest first; reversing keeps the order of arrival even within a millisecond.
        List<LoggedRequest> all = new ArrayList<>(server.getAllServeEvents().stream().map(ServeEvent::getRequest)
                .filter(r -> r.getUrl().startsWith(pathPrefix)).toList());
        Collections.reverse(all);
        return all;
    }

    /** The JSON bodies of {@link #requests(String)}, an empty body as an empty object. */
    public List<JsonNode> bodies(String pathPrefix) {
        return requests(pathPrefix).stream().map(r -> {
            try {
                return parse(r.getBodyAsString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).toList();
    }

    @Override
    public void close() {
        server.stop();
    }

    private static String accessTokens(long installationId) {
        return "/app/installations/" + installationId + "/access_tokens";
    }

    private static StringValuePattern authorizedBy(String token) {
        // GitHub takes a token after either scheme.
        return equalTo("Bearer " + token).or(equalTo("token " + token));
    }

    /** A 200 with the rate-limit headers GitHub sends with every API answer. */
    private static ResponseDefinitionBuilder api(String body) {
        return json(200, body).withHeader("x-ratelimit-limit", "5000").withHeader("x-ratelimit-remaining", "4999")
                .withHeader("x-ratelimit-used", "1").withHeader("x-ratelimit-resource", "core")
                .withHeader("x-ratelimit-reset", Long.toString(Instant.now().plus(1, ChronoUnit.HOURS).getEpochSecond()));
    }

    private static ResponseDefinitionBuilder json(int status, String body) {
        return aResponse().withStatus(status).withHeader("Content-Type", CONTENT_TYPE).withBody(body);
    }

    /** {@code text} with each {@code {{key}}} replaced by its value, escaped for a JSON string. */
    static String fill(String text, Map<String, String> values) {
        String filled = text;
        for (Map.Entry<String, String> e : values.entrySet()) {
            filled = filled.replace("{{" + e.getKey() + "}}", new String(JsonStringEncoder.getInstance().quoteAsString(e.getValue())));
        }
        return filled;
    }

    static String fixture(String name) {
        try (InputStream in = FakeGitHub.class.getResourceAsStream("/github/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture github/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode parse(String body) throws IOException {
        return body == null || body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
    }

    /** An installation's tokens, served in turn, and their lifetime. */
    private static final class Minting {
        private final List<String> tokens;
        private final Duration lifetime;
        private final AtomicInteger served = new AtomicInteger();

        Minting(List<String> tokens, Duration lifetime) {
            this.tokens = tokens;
            this.lifetime = lifetime;
        }

        String next() {
            return tokens.get(Math.min(served.getAndIncrement(), tokens.size() - 1));
        }
    }

    /**
     * Builds each 201 of {@link #mints} when it is asked for: the token's turn, an
     * {@code expires_at} from the moment of the answer, and the echo of the request body, which
     * WireMock's response templates cannot do for a list of repository objects.
     */
    private static final class InstallationTokens implements ResponseDefinitionTransformerV2 {
        private final Map<Long, Minting> minting;
        private final AtomicReference<String> account;

        InstallationTokens(Map<Long, Minting> minting, AtomicReference<String> account) {
            this.minting = minting;
            this.account = account;
        }

        @Override
        public String getName() {
            return MINT;
        }

        @Override
        public boolean applyGlobally() {
            return false;
        }

        @Override
        public ResponseDefinition transform(ServeEvent event) {
            long id = Long.parseLong(event.getResponseDefinition().getTransformerParameters().getString("installation"));
            String refused = timesRefused(event.getRequest().getHeader("Authorization"));
            if (refused != null) {
                return json(401, "{\"message\":\"" + refused.replace("\"", "\\\"") + "\",\"documentation_url\":\"https://docs.github.com/rest\","
                        + "\"status\":\"401\"}").withHeader("Date", DateTimeFormatter.RFC_1123_DATE_TIME.format(
                                ZonedDateTime.now(ZoneOffset.UTC))).build();
            }
            JsonNode asked;
            try {
                asked = parse(event.getRequest().getBodyAsString());
            } catch (IOException e) {
                return json(400, fixture("error-problems-parsing-json.json")).build();
            }
            Minting m = minting.get(id);
            String body = token(m.next(), Instant.now().plus(m.lifetime), asked, account.get());
            return json(201, body).withHeader("Date", DateTimeFormatter.RFC_1123_DATE_TIME.format(
                    ZonedDateTime.now(ZoneOffset.UTC))).build();
        }

        /**
         * What GitHub says of the JWT's times, by its clock (this machine's): {@code iat} must not
         * be in its future, {@code exp} must be ahead and at most 10 minutes on; the messages are
         * GitHub's own (as Octokit's auth-app matches them). {@code null} when the times are good
         * or the bearer is no JWT with them (the signature is the test's to check).
         */
        private static String timesRefused(String authorization) {
            try {
                String payload = authorization.substring("Bearer ".length()).split("\\.")[1];
                JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(payload));
                long now = Instant.now().getEpochSecond();
                if (claims.path("iat").asLong(Long.MAX_VALUE) > now) {
                    return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
                }
                long exp = claims.path("exp").asLong(0);
                if (exp <= now) {
                    return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
                }
                return exp > now + 600 ? "'Expiration time' claim ('exp') is too far in the future" : null;
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        private static String token(String token, Instant expires, JsonNode asked, String account) {
            try {
                ObjectNode answer = (ObjectNode) JSON.readTree(fixture("installation-token.json"));
                answer.put("token", token);
                answer.put("expires_at", GITHUB_TIME.format(expires.truncatedTo(ChronoUnit.SECONDS)));
                if (asked.path("permissions").isObject() && !asked.path("permissions").isEmpty()) {
                    answer.set("permissions", asked.get("permissions"));
                }
                String template = answer.get("repositories").get(0).toString();
                ArrayNode repositories = JSON.createArrayNode();
                for (JsonNode name : asked.path("repositories")) {
                    repositories.add(JSON.readTree(fill(template, Map.of("owner", account, "repo", name.asText()))));
                }
                for (JsonNode repositoryId : asked.path("repository_ids")) {
                    // The fake knows no names for ids: it makes one up, and keeps the id asked.
                    ObjectNode repository = (ObjectNode) JSON.readTree(
                            fill(template, Map.of("owner", account, "repo", "repo-" + repositoryId.asLong())));
                    repository.put("id", repositoryId.asLong());
                    repositories.add(repository);
                }
                if (repositories.isEmpty()) {
                    // Not narrowed: the token has every repository of the installation, and GitHub lists none.
                    answer.put("repository_selection", "all");
                    answer.remove("repositories");
                } else {
                    answer.put("repository_selection", "selected");
                    answer.set("repositories", repositories);
                }
                return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answer);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Builds each answer of {@link #compares} from the test's repository when it is asked for. */
    private static final class Comparisons implements ResponseDefinitionTransformerV2 {
        private final Map<String, Comparer> comparers;

        Comparisons(Map<String, Comparer> comparers) {
            this.comparers = comparers;
        }

        @Override
        public String getName() {
            return COMPARE;
        }

        @Override
        public boolean applyGlobally() {
            return false;
        }

        @Override
        public ResponseDefinition transform(ServeEvent event) {
            String repository = event.getResponseDefinition().getTransformerParameters().getString("repository");
            String path = event.getRequest().getUrl().replaceFirst("\\?.*", "");
            String[] basehead = path.substring(path.lastIndexOf('/') + 1).split("\\.\\.\\.");
            Comparison c;
            try {
                c = comparers.get(repository).compare(basehead[0], basehead[1]);
            } catch (Exception e) {
                return json(500, "{\"message\":\"" + e.getClass().getSimpleName() + "\"}").build();
            }
            if (c == null) {
                return json(404, "{\"message\":\"Not Found\",\"documentation_url\":"
                        + "\"https://docs.github.com/rest/commits/commits#compare-two-commits\",\"status\":\"404\"}").build();
            }
            String owner = repository.substring(0, repository.indexOf('/'));
            try {
                ObjectNode answer = (ObjectNode) JSON.readTree(fill(fixture("compare.json"), Map.of("owner", owner,
                        "repo", repository.substring(owner.length() + 1), "base", basehead[0], "head", basehead[1], "status", c.status(),
                        "merge_base", c.mergeBase() == null ? "" : c.mergeBase())));
                answer.put("ahead_by", c.aheadBy());
                answer.put("behind_by", c.behindBy());
                answer.put("total_commits", c.aheadBy());
                return api(answer.toString()).build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Builds each answer of {@link #writes} from what the request asked. */
    private static final class Writes implements ResponseDefinitionTransformerV2 {
        @Override
        public String getName() {
            return WRITE;
        }

        @Override
        public boolean applyGlobally() {
            return false;
        }

        @Override
        public ResponseDefinition transform(ServeEvent event) {
            var parameters = event.getResponseDefinition().getTransformerParameters();
            String owner = parameters.getString("owner");
            String repo = parameters.getString("repo");
            String method = event.getRequest().getMethod().getName();
            String path = event.getRequest().getUrl().replaceFirst("\\?.*", "");
            try {
                JsonNode asked = parse(event.getRequest().getBodyAsString());
                if (path.contains("/git/refs")) {
                    String ref = method.equals("POST") ? asked.path("ref").asText() : path.substring(path.indexOf("/git/") + 5);
                    return api(fill(fixture("ref.json"), Map.of("owner", owner, "repo", repo, "ref", ref)))
                            .withStatus(method.equals("POST") ? 201 : 200).build();
                }
                ObjectNode answer = (ObjectNode) JSON.readTree(fill(fixture("file-commit.json"), Map.of("owner", owner, "repo", repo,
                        "branch", asked.path("branch").asText())));
                if (method.equals("DELETE")) {
                    answer.putNull("content");
                }
                return api(answer.toString()).withStatus(method.equals("PUT") ? 201 : 200).build();
            } catch (IOException e) {
                return json(400, fixture("error-problems-parsing-json.json")).build();
            }
        }
    }
}
