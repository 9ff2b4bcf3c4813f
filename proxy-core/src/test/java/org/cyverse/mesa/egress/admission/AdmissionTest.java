package org.cyverse.mesa.egress.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.admission.Verdict.Mode;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.approval.ApprovalBook;
import org.cyverse.mesa.egress.approval.ApprovalScope;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.config.ProfileCatalog;
import org.cyverse.mesa.egress.injector.Injector;
import org.cyverse.mesa.egress.injector.CredentialSteps;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretValues;
import org.cyverse.mesa.egress.injector.budget.CredentialBudgets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SPEC.md's decision order, one named row per case, through {@link Admission} alone: no socket,
 * no channel. Every reason code is either produced by a row here or named in
 * {@link #DECIDED_ELSEWHERE} with the stage that produces it.
 */
class AdmissionTest {

    static final String API_SECRET = "sk-api-REAL-4f1d2c";
    static final String GIT_SECRET = "ghs_REAL_git_token_77";

    /** The config every row is decided with (the same rows run against the real proxy in CheckAgreesWithProxyTest). */
    static final String CONFIG = """
            version: 1
            profile: P2
            allow:
              - host: "open.test"
                ports: [80, 443]
              - host: "*.open.test"
              - host: "ro.test"
                methods: [GET]
                paths: ["/pub/**"]
              - host: "10.0.0.0/8"
              - host: "api.test"
              - host: "git.test"
                ports: [443]
              - host: "legacy.test"
                ports: [80]
            deny:
              - host: "blocked.open.test"
              - host: "uploads.test"
                methods: [POST]
            credentials:
              - name: api
                hosts: ["api.test"]
                sentinel: "sk-api-sentinel"
                header: "x-api-key"
                format: "{secret}"
                secret: "env:MESA_TEST_API"
              - name: api-audit
                hosts: ["api.test"]
                header: "x-audit-key"
                format: "{secret}"
                secret: "env:MESA_TEST_API_AUDIT"
              - name: git
                hosts: ["git.test"]
                sentinel: "proxy-injected"
                secret: "env:MESA_TEST_GIT"
                limits: {concurrent: 1}
              - name: legacy
                hosts: ["legacy.test"]
                ports: [80]
                sentinel: "legacy-sentinel"
                header: "x-legacy"
                format: "{secret}"
                secret: "env:MESA_TEST_LEGACY"
                allow_plaintext: true
            """;

    /** Reasons no admission row can produce, and the stage that does. */
    static final Map<Reason, String> DECIDED_ELSEWHERE = Map.of(
            Reason.HEADERS_TOO_LARGE, "StrictRequestDecoder (step 1)",
            Reason.HEADER_TIMEOUT, "ClientTimers",
            Reason.DNS_FAILURE, "UpstreamDialer (step 4)",
            Reason.UPSTREAM_UNREACHABLE, "UpstreamDialer, ForwardExchange",
            Reason.UPSTREAM_TLS_ERROR, "ForwardExchange (upstream handshake)",
            Reason.UPSTREAM_TIMEOUT, "UpstreamDialer, ForwardExchange",
            Reason.OVERLOADED, "ConnectionGate",
            Reason.ADMIN_UNAUTHORIZED, "AdminCalls (the admin port, not a proxied request)",
            Reason.GRAPHQL_NOT_ALLOWED, "GraphQlCheck (the request body, after admission)");

    static Admission admission;
    static Admission withoutInterception;
    static Admission unavailable;
    static Admission killed;
    /** Credential git's one concurrent request is taken (a request in flight). */
    static Admission spent;
    /** With the approval inbox on; granted.test is approved. */
    static Admission approving;
    /** With an aws_sigv4 credential for osn.test. */
    static Admission signing;
    static Admission github;

    @BeforeAll
    static void load(@TempDir Path dir) throws IOException {
        MesaConfig config = load(dir, CONFIG);
        Map<String, Secret> values = Map.of("api", Secret.of(API_SECRET), "api-audit", Secret.of("audit-REAL-1"),
                "git", Secret.of(GIT_SECRET), "legacy", Secret.of("legacy-REAL-2"));
        admission = new Admission(config, config.addressGuard(List.of()), List.of(new Injector(config.credentials(),
                fixed(values))), true);
        withoutInterception = new Admission(config, config.addressGuard(List.of()), List.of(new Injector(config.credentials(),
                fixed(values))), false);
        unavailable = new Admission(config, config.addressGuard(List.of()), List.of(new Injector(config.credentials(),
                fixed(Map.of()))), true);
        killed = new Admission(config, config.addressGuard(List.of()), List.of(new Injector(config.credentials(),
                fixed(values))), true, new RunningProxy(() -> true, null, null));
        CredentialBudgets budgets = new CredentialBudgets();
        budgets.configure(config.credentials());
        spent = new Admission(config, config.addressGuard(List.of()), List.of(new Injector(config.credentials(),
                fixed(values))), true, new RunningProxy(() -> false, budgets, null));
        MesaConfig withInbox = load(dir, CONFIG + "admin: {listen: 127.0.0.1:0, token_file: /run/mesa-egress-admin/token}\n"
                + "approvals: {enabled: true}\n");
        ApprovalBook book = new ApprovalBook(java.time.Clock.systemUTC(), (outcome, a) -> { });
        book.configure("P2", java.time.Duration.ofMinutes(15), 100);
        approving = new Admission(withInbox, withInbox.addressGuard(List.of()), List.of(new Injector(withInbox.credentials(),
                fixed(values))), true, new RunningProxy(() -> false, null, book));
        MesaConfig withOsn = load(dir, CONFIG.replace("allow:\n", "allow:\n  - host: \"osn.test\"\n")
                + "  - name: osn\n    hosts: [\"osn.test\"]\n    aws_sigv4:\n      sentinel_access_key_id: SNTLOSNSENTINEL00001\n"
                + "      sentinel_secret_access_key: osn-sentinel-secret-key-0001\n      access_key_id: AKIAOSNREALKEY000001\n"
                + "      secret_access_key: \"env:MESA_TEST_OSN\"\n");
        Map<String, Secret> withOsnValues = new java.util.HashMap<>(values);
        withOsnValues.put("osn", Secret.of("osn-REAL-secret-access-key"));
        signing = new Admission(withOsn, withOsn.addressGuard(List.of()), CredentialSteps.of(new Injector(withOsn.credentials(),
                fixed(withOsnValues)), withOsn.credentials(), fixed(withOsnValues)), true);
        MesaConfig withGitHub = load(dir, CONFIG.replace("allow:\n", "allow:\n  - host: \"ghapi.test\"\n  - host: \"gh.test\"\n")
                + "  - name: gh\n    hosts: [\"ghapi.test\", \"gh.test\"]\n    sentinel: gh-sentinel\n    github_app:\n"
                + "      app_id: 1\n      private_key: \"env:MESA_TEST_GH_KEY\"\n      installation_id: 2\n"
                + "      repositories: [acme/widgets]\n      branch: agent/job-17\n      api_url: https://ghapi.test\n");
        Map<String, Secret> withGitHubValues = new java.util.HashMap<>(values);
        withGitHubValues.put("gh", Secret.of("ghs_REALTOKEN0000000000000000000000000001"));
        github = new Admission(withGitHub, withGitHub.addressGuard(List.of()), CredentialSteps.of(new Injector(withGitHub.credentials(),
                fixed(withGitHubValues)), withGitHub.credentials(), fixed(withGitHubValues)), true);
        String granted = book.ask("granted.test", 80).approval().id();
        assertEquals(200, book.approve(granted, null, java.time.Duration.ofHours(1), "alice").status());
        String getOnly = book.ask("getonly.test", 443).approval().id();
        assertEquals(200, book.approve(getOnly, new ApprovalScope("getonly.test", java.util.Set.of(443), java.util.Set.of("GET")),
                java.time.Duration.ofHours(1), "alice").status());
        Verdict inFlight = spent.decide(inside("git.test", "GET", "/o/r.git/info/refs", "Authorization", basic("x-access-token", "proxy-injected")));
        assertTrue(inFlight.allowed() && inFlight.budget().holdsAny(), () -> "the first git request takes the budget: " + inFlight);
    }

    static MesaConfig load(Path dir, String yaml) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, yaml);
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled()).load(file, Overrides.NONE);
        assertTrue(result.ok(), () -> "test config invalid: " + result.problems());
        return result.config();
    }

    static SecretValues fixed(Map<String, Secret> values) {
        return new SecretValues() {
            @Override
            public Optional<Secret> current(String credential) {
                return Optional.ofNullable(values.get(credential));
            }

            @Override
            public List<Secret> held(String credential) {
                return values.containsKey(credential) ? List.of(values.get(credential)) : List.of();
            }

            @Override
            public long generation() {
                return 1;
            }
        };
    }

    /** One case: the facts, and what the verdict must say. */
    record Row(String name, Admission by, RequestFacts facts, Reason reason, Mode mode, String credential, String rule) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Destination dest(String host, int port) {
        try {
            return Destination.parse(host, port);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static List<Map.Entry<String, String>> host(String host, String... more) {
        List<Map.Entry<String, String>> headers = new java.util.ArrayList<>();
        headers.add(Map.entry("Host", host));
        for (int i = 0; i + 1 < more.length; i += 2) {
            headers.add(Map.entry(more[i], more[i + 1]));
        }
        return headers;
    }

    static RequestFacts get(String uri, String... headers) {
        return RequestFacts.proxyRequest("GET", uri, host("x", headers));
    }

    static RequestFacts inside(String host, String method, String target, String... headers) {
        return RequestFacts.insideTunnel(dest(host, 443), method, target, host(host, headers));
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static Stream<Row> rows() {
        return Stream.of(
                // Step 1-2: targets that do not parse or name nothing.
                new Row("origin-form sent to the proxy", admission, get("/x"), Reason.BAD_REQUEST, Mode.FORWARD, null, null),
                new Row("an https URL as a plain request", admission, get("https://open.test/"), Reason.BAD_REQUEST, Mode.FORWARD, null, null),
                new Row("user information in the target", admission, get("http://u:p@open.test/"), Reason.BAD_REQUEST, Mode.FORWARD, null, null),
                new Row("CONNECT without a port", admission, RequestFacts.connect("open.test"), Reason.BAD_REQUEST, Mode.TUNNEL, null, null),
                new Row("an unparseable host", admission, get("http://exa_mple..test/"), Reason.BAD_REQUEST, Mode.FORWARD, null, null),
                // Step 3: deny, allow with ports, methods and paths.
                new Row("allowed, forwarded", admission, get("http://open.test/x"), Reason.ALLOWED, Mode.FORWARD, null, "allow[0]: open.test"),
                new Row("a host of no rule", admission, get("http://nowhere.test/"), Reason.HOST_NOT_ALLOWED, Mode.FORWARD, null, null),
                new Row("the deny list before the allow list", admission, get("http://blocked.open.test/"), Reason.HOST_NOT_ALLOWED,
                        Mode.FORWARD, null, "deny[0]: blocked.open.test"),
                new Row("metadata, hex-spelled", admission, get("http://0xa9fea9fe/latest"), Reason.HOST_NOT_ALLOWED, Mode.FORWARD, null, null),
                new Row("a port the rule does not list", admission, get("http://open.test:8080/"), Reason.PORT_NOT_ALLOWED, Mode.FORWARD,
                        null, null),
                new Row("a method the rule does not list", admission, RequestFacts.proxyRequest("POST", "http://ro.test/pub/a", host("ro.test")),
                        Reason.METHOD_NOT_ALLOWED, Mode.FORWARD, null, "allow[2]: ro.test"),
                new Row("a path the rule does not list", admission, get("http://ro.test/private"), Reason.PATH_NOT_ALLOWED, Mode.FORWARD,
                        null, "allow[2]: ro.test"),
                new Row("a dot-dot path out of the rule's glob", admission, get("http://ro.test/pub/../private"), Reason.PATH_NOT_ALLOWED,
                        Mode.FORWARD, null, "allow[2]: ro.test"),
                new Row("CONNECT allowed, opaque", admission, RequestFacts.connect("open.test:443"), Reason.ALLOWED, Mode.TUNNEL, null,
                        "allow[0]: open.test"),
                new Row("killed: an allowed request", killed, get("http://open.test/x"), Reason.EGRESS_KILLED, Mode.FORWARD, null, null),
                new Row("killed: an allowed CONNECT", killed, RequestFacts.connect("open.test:443"), Reason.EGRESS_KILLED, Mode.TUNNEL,
                        null, null),
                new Row("killed: a request inside an intercepted tunnel, sentinel and all", killed,
                        inside("api.test", "POST", "/v1/messages", "x-api-key", "sk-api-sentinel"), Reason.EGRESS_KILLED, Mode.INTERCEPT,
                        null, null),
                new Row("over a credential's limit: 429, and not sent without the credential instead", spent,
                        inside("git.test", "GET", "/o/r.git/info/refs", "Authorization", basic("x-access-token", "proxy-injected")),
                        Reason.CREDENTIAL_BUDGET_EXCEEDED, Mode.INTERCEPT, "git", "limits.concurrent"),
                new Row("over one credential's limit: a request for another goes on", spent,
                        inside("api.test", "POST", "/v1/messages", "x-api-key", "sk-api-sentinel"), Reason.ALLOWED, Mode.INTERCEPT, "api", null),
                new Row("over a credential's limit: a request to its host without its sentinel is not limited", spent,
                        inside("git.test", "GET", "/"), Reason.ALLOWED, Mode.INTERCEPT, null, "allow[5]: git.test"),
                new Row("approvals: a host no rule names asks for approval", approving, get("http://new.test/x"), Reason.APPROVAL_REQUIRED,
                        Mode.FORWARD, null, null),
                new Row("approvals: a CONNECT to a host no rule names asks too", approving, RequestFacts.connect("new.test:443"),
                        Reason.APPROVAL_REQUIRED, Mode.TUNNEL, null, null),
                new Row("approvals: an approved host is allowed", approving, get("http://granted.test/x"), Reason.ALLOWED, Mode.FORWARD,
                        null, null),
                new Row("approvals: the approval's port only", approving, get("http://granted.test:8080/x"), Reason.APPROVAL_REQUIRED,
                        Mode.FORWARD, null, null),
                new Row("approvals: the deny list is never approvable", approving, get("http://blocked.open.test/"),
                        Reason.HOST_NOT_ALLOWED, Mode.FORWARD, null, "deny[0]: blocked.open.test"),
                new Row("approvals: a port the allow-list does not give is not approvable", approving, get("http://open.test:8080/"),
                        Reason.PORT_NOT_ALLOWED, Mode.FORWARD, null, null),
                new Row("approvals: a metadata address is never approvable", approving, get("http://169.254.169.254/latest"),
                        Reason.HOST_NOT_ALLOWED, Mode.FORWARD, null, null),
                new Row("approvals: a host carrying a real secret never reaches the inbox", approving,
                        get("http://" + API_SECRET.toLowerCase() + ".evil.test/"), Reason.HOST_NOT_ALLOWED, Mode.FORWARD, "api", null),
                new Row("approvals: a host a deny rule names for some methods is never approvable, even by CONNECT", approving,
                        RequestFacts.connect("uploads.test:443"), Reason.HOST_NOT_ALLOWED, Mode.TUNNEL, null, null),
                new Row("approvals: a sentinel headed to a host of no rule never reaches the inbox", approving,
                        get("http://new2.test/", "x-api-key", "sk-api-sentinel"), Reason.HOST_NOT_ALLOWED, Mode.FORWARD, null, null),
                new Row("approvals: a grant for GET refuses POST, naming it, and asks nothing", approving,
                        inside("getonly.test", "POST", "/upload"), Reason.METHOD_NOT_ALLOWED, Mode.INTERCEPT, null, null),
                new Row("approvals: a grant for GET allows GET inside the tunnel", approving, inside("getonly.test", "GET", "/simple/"),
                        Reason.ALLOWED, Mode.INTERCEPT, null, null),
                new Row("without approvals a host no rule names is refused", admission, get("http://new.test/x"), Reason.HOST_NOT_ALLOWED,
                        Mode.FORWARD, null, null),
                new Row("CONNECT of no rule", admission, RequestFacts.connect("nowhere.test:443"), Reason.HOST_NOT_ALLOWED, Mode.TUNNEL, null, null),
                new Row("CONNECT to a rule with paths: intercepted", admission, RequestFacts.connect("ro.test:443"), Reason.ALLOWED,
                        Mode.INTERCEPT, null, "allow[2]: ro.test"),
                new Row("CONNECT to a rule with paths, no CA to intercept with", withoutInterception, RequestFacts.connect("ro.test:443"),
                        Reason.METHOD_NOT_ALLOWED, Mode.TUNNEL, null, "allow[2]: ro.test"),
                new Row("a path refused inside the tunnel", admission, inside("ro.test", "GET", "/private"), Reason.PATH_NOT_ALLOWED,
                        Mode.INTERCEPT, null, "allow[2]: ro.test"),
                // Step 4 for IP literals.
                new Row("a private literal an allow rule names", admission, get("http://10.1.2.3/"), Reason.ADDRESS_NOT_ALLOWED, Mode.FORWARD,
                        null, "allow[3]: 10.0.0.0/8"),
                new Row("CONNECT to a private literal", admission, RequestFacts.connect("10.1.2.3:443"), Reason.ADDRESS_NOT_ALLOWED,
                        Mode.TUNNEL, null, "allow[3]: 10.0.0.0/8"),
                // Inside an intercepted tunnel: the target and Host must name the CONNECT target.
                new Row("Host names another host", admission, RequestFacts.insideTunnel(dest("api.test", 443), "GET", "/", host("evil.test")),
                        Reason.HOST_MISMATCH, Mode.INTERCEPT, null, null),
                new Row("an absolute target of another host", admission, inside("api.test", "GET", "https://evil.test/"),
                        Reason.HOST_MISMATCH, Mode.INTERCEPT, null, null),
                new Row("no Host", admission, RequestFacts.insideTunnel(dest("api.test", 443), "GET", "/", List.of()), Reason.HOST_MISMATCH,
                        Mode.INTERCEPT, null, null),
                new Row("TRACE to an inspected host", admission, inside("api.test", "TRACE", "/"), Reason.METHOD_REFUSED, Mode.INTERCEPT, null,
                        "allow[4]: api.test"),
                new Row("trace, in lowercase", admission, inside("api.test", "trace", "/"), Reason.METHOD_REFUSED, Mode.INTERCEPT, null,
                        "allow[4]: api.test"),
                // Step 5: credentials.
                new Row("every credential in scope is applied", admission, inside("api.test", "POST", "/v1/messages",
                        "x-api-key", "sk-api-sentinel"), Reason.ALLOWED, Mode.INTERCEPT, "api", "allow[4]: api.test"),
                new Row("git's Basic sentinel", admission, inside("git.test", "GET", "/o/r.git/info/refs",
                        "Authorization", basic("x-access-token", "proxy-injected")), Reason.ALLOWED, Mode.INTERCEPT, "git", "allow[5]: git.test"),
                new Row("a sentinel headed to another host", admission, inside("api.test", "GET", "/",
                        "Authorization", basic("x-access-token", "proxy-injected")), Reason.CREDENTIAL_ENDPOINT_MISMATCH, Mode.INTERCEPT, "git",
                        "allow[4]: api.test"),
                new Row("a sentinel in the query, plain http elsewhere", admission, get("http://open.test/?k=sk-api-sentinel"),
                        Reason.CREDENTIAL_ENDPOINT_MISMATCH, Mode.FORWARD, "api", "allow[0]: open.test"),
                new Row("a real secret, percent-encoded in the query", admission, inside("api.test", "GET", "/?k=sk%2Dapi%2DREAL%2D4f1d2c"),
                        Reason.SECRET_LEAK, Mode.INTERCEPT, "api", "allow[4]: api.test"),
                new Row("a real secret to a host without credentials", admission, get("http://open.test/", "X-Token", GIT_SECRET),
                        Reason.SECRET_LEAK, Mode.FORWARD, "git", "allow[0]: open.test"),
                new Row("a sentinel over plain http", admission, get("http://api.test/", "x-api-key", "sk-api-sentinel"),
                        Reason.PLAINTEXT_CREDENTIAL, Mode.FORWARD, "api", "allow[4]: api.test"),
                new Row("allow_plaintext: injected over plain http", admission, get("http://legacy.test/", "X-Key", "legacy-sentinel"),
                        Reason.ALLOWED, Mode.FORWARD, "legacy", "allow[6]: legacy.test"),
                new Row("plain http without a sentinel: unchanged", admission, get("http://api.test/"), Reason.ALLOWED, Mode.FORWARD, null,
                        "allow[4]: api.test"),
                new Row("aws_sigv4: SigV4a cannot be re-signed", signing, inside("osn.test", "GET", "/b/k", "x-amz-date", "20261202T110000Z",
                        "Authorization", "AWS4-ECDSA-P256-SHA256 Credential=SNTLOSNSENTINEL00001/20261202/s3/aws4_request, SignedHeaders=host,"
                        + " Signature=" + "0".repeat(64)), Reason.SIGV4_UNSUPPORTED, Mode.INTERCEPT, "osn", null),
                new Row("aws_sigv4: a signature that is not the sentinel pair's", signing, inside("osn.test", "GET", "/b/k",
                        "x-amz-date", "20261202T110000Z", "x-amz-content-sha256", "UNSIGNED-PAYLOAD", "Authorization",
                        "AWS4-HMAC-SHA256 Credential=SNTLOSNSENTINEL00001/20261202/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date,"
                        + " Signature=" + "0".repeat(64)), Reason.SIGV4_SIGNATURE_MISMATCH, Mode.INTERCEPT, "osn", null),
                new Row("aws_sigv4: another key id to its host", signing, inside("osn.test", "GET", "/b/k", "x-amz-date", "20261202T110000Z",
                        "Authorization", "AWS4-HMAC-SHA256 Credential=AKIAOTHER00000000001/20261202/us-east-1/s3/aws4_request,"
                        + " SignedHeaders=host;x-amz-date, Signature=" + "0".repeat(64)), Reason.CREDENTIAL_ENDPOINT_MISMATCH, Mode.INTERCEPT,
                        "osn", null),
                new Row("aws_sigv4: the sentinel key id to another host", signing, inside("api.test", "GET", "/", "Authorization",
                        "AWS4-HMAC-SHA256 Credential=SNTLOSNSENTINEL00001/20261202/us-east-1/s3/aws4_request"),
                        Reason.CREDENTIAL_ENDPOINT_MISMATCH, Mode.INTERCEPT, "osn", null),
                new Row("github_app: the job's repository over git", github, inside("gh.test", "GET",
                        "/acme/widgets.git/info/refs?service=git-upload-pack"), Reason.ALLOWED, Mode.INTERCEPT, "gh", null),
                new Row("github_app: another repository over REST", github, inside("ghapi.test", "GET", "/repos/acme/other", "Authorization",
                        "token gh-sentinel"), Reason.REPOSITORY_NOT_ALLOWED, Mode.INTERCEPT, "gh", null),
                new Row("github_app: merging a pull request into its base", github, inside("ghapi.test", "PUT", "/repos/acme/widgets/pulls/1/merge"),
                        Reason.REF_NOT_ALLOWED, Mode.INTERCEPT, "gh", null),
                new Row("github_app: the sentinel to another host", github, inside("api.test", "GET", "/", "Authorization", "token gh-sentinel"),
                        Reason.CREDENTIAL_ENDPOINT_MISMATCH, Mode.INTERCEPT, "gh", null),
                new Row("no value for a credential in scope", unavailable, inside("api.test", "GET", "/"), Reason.CREDENTIAL_UNAVAILABLE,
                        Mode.INTERCEPT, "api", "allow[4]: api.test"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachRowGetsItsVerdict(Row row) {
        Verdict verdict = row.by().decide(row.facts());
        assertEquals(row.reason(), verdict.reason(), () -> row.name() + ": " + verdict.refusal());
        assertEquals(row.mode(), verdict.mode(), row.name());
        assertEquals(row.credential(), verdict.credential(), row.name());
        if (row.rule() != null) {
            assertEquals(row.rule(), verdict.rule(), row.name());
        }
        assertEquals(verdict.allowed(), verdict.refusal() == null, row.name());
        if (!verdict.allowed()) {
            Refusal refusal = verdict.refusal();
            assertEquals(Refusals.status(refusal.reason()), refusal.status(), row.name());
            assertFalse(refusal.hint().isBlank(), row.name());
            assertFalse(refusal.error().isBlank(), row.name());
            assertNull(verdict.outgoing(), row.name());
            assertEquals(refusal.reason() == Reason.CREDENTIAL_BUDGET_EXCEEDED, refusal.retryAfterSeconds() > 0,
                    row.name() + ": Retry-After goes with a budget refusal, and only with one");
            assertFalse(verdict.budget().holdsAny(), row.name() + ": a refused request holds no place in a budget");
        }
        String everything = verdict.toString() + verdict.refusal();
        for (String secret : List.of(API_SECRET, GIT_SECRET, "sk%2Dapi%2DREAL%2D4f1d2c")) {
            assertFalse(everything.contains(secret), row.name() + ": the verdict's text carries a secret");
        }
    }

    @Test
    void aHostMismatchSaysWhichNameDiffered() {
        Verdict verdict = admission.decide(RequestFacts.insideTunnel(dest("api.test", 443), "GET", "/", List.of(Map.entry("Host", "evil.test"))));
        assertEquals(Reason.HOST_MISMATCH, verdict.reason());
        assertEquals("the request does not name the CONNECT target api.test (Host evil.test)", verdict.refusal().error(),
                "the Host header differed, not the TLS server name");
    }

    @Test
    void everyReasonIsProducedByARowOrNamedAsDecidedElsewhere() {
        Set<Reason> produced = rows().map(Row::reason).collect(Collectors.toCollection(() -> EnumSet.noneOf(Reason.class)));
        for (Reason reason : Reason.values()) {
            assertTrue(produced.contains(reason) ^ DECIDED_ELSEWHERE.containsKey(reason),
                    reason + " must be produced by exactly one of: an admission row, " + DECIDED_ELSEWHERE.keySet());
        }
    }

    @Test
    void allCredentialsInScopeAreListedWithWhatEachDid() {
        Verdict verdict = admission.decide(inside("api.test", "POST", "/v1/messages", "x-api-key", "sk-api-sentinel"));
        assertEquals(List.of("api", "api-audit"), verdict.applied().stream().map(a -> a.credential()).toList());
        assertTrue(verdict.applied().get(0).actions().contains("header x-api-key set"), verdict.applied().toString());
        assertEquals(List.of("header x-audit-key set"), verdict.applied().get(1).actions());
        Map<String, String> sent = verdict.outgoing().headers().stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertEquals(API_SECRET, sent.get("x-api-key"));
        assertEquals("audit-REAL-1", sent.get("x-audit-key"));
    }

    @Test
    void aLeakKeepsThePathAndTheSecretOutOfTheVerdict() {
        Verdict verdict = admission.decide(inside("api.test", "GET", "/keys/" + API_SECRET));
        assertEquals(Reason.SECRET_LEAK, verdict.reason());
        assertEquals("[redacted]", verdict.path());
        assertNotNull(verdict.refusal().hint());
    }

    /** A request refused for another reason first still has its secret kept out of the record, which names the leak. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedWhileLeaking")
    void aSecretInARequestRefusedForAnotherReasonStaysOutOfTheVerdict(String name, RequestFacts facts, Reason reason) {
        Verdict verdict = admission.decide(facts);
        assertEquals(reason, verdict.reason(), name);
        assertEquals("[redacted]", verdict.path(), name);
        assertEquals(org.cyverse.mesa.egress.injector.Injection.Outcome.SECRET_LEAK, verdict.injection(), name);
        String text = verdict + " " + verdict.refusal() + " " + verdict.host();
        assertFalse(text.contains(API_SECRET), name + ": " + text);
        assertFalse(text.toLowerCase(java.util.Locale.ROOT).contains(API_SECRET.toLowerCase(java.util.Locale.ROOT)), name + ": " + text);
    }

    static Stream<org.junit.jupiter.params.provider.Arguments> refusedWhileLeaking() {
        return Stream.of(
                org.junit.jupiter.params.provider.Arguments.of("a private literal, the secret in the path",
                        get("http://10.1.2.3/" + API_SECRET + "/x"), Reason.ADDRESS_NOT_ALLOWED),
                org.junit.jupiter.params.provider.Arguments.of("a host of no rule, the secret in the path",
                        get("http://nowhere.test/keys/" + API_SECRET), Reason.HOST_NOT_ALLOWED),
                org.junit.jupiter.params.provider.Arguments.of("a host of no rule, the secret in a header",
                        get("http://nowhere.test/x", "X-Token", API_SECRET), Reason.HOST_NOT_ALLOWED),
                org.junit.jupiter.params.provider.Arguments.of("a secret as the host name",
                        get("http://" + API_SECRET + ".test/x"), Reason.HOST_NOT_ALLOWED));
    }

    @Test
    void gitBasicSentinelIsReplacedInsideTheCredentials() {
        Verdict verdict = admission.decide(inside("git.test", "GET", "/o/r.git/info/refs",
                "Authorization", basic("x-access-token", "proxy-injected")));
        assertEquals(basic("x-access-token", GIT_SECRET), verdict.outgoing().headers().stream()
                .filter(h -> h.getKey().equals("Authorization")).findFirst().orElseThrow().getValue());
    }
}
