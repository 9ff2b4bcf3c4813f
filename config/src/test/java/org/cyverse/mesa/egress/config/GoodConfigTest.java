package org.cyverse.mesa.egress.config;

import static org.cyverse.mesa.egress.config.ConfigFixtures.loadOk;
import static org.cyverse.mesa.egress.config.ConfigFixtures.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.allowlist.Decision.Outcome;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.Policy;
import org.cyverse.mesa.egress.allowlist.Rule;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.CredentialLimits;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoSettings.AuthMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Valid configs load into exactly what they say, with SPEC.md's defaults for what they leave out. */
class GoodConfigTest {

    @TempDir
    Path dir;

    private Path write(String name, String yaml) throws IOException {
        return Files.writeString(dir.resolve(name), yaml);
    }

    private static Outcome decide(Policy policy, String host, int port, String method, String path) throws Exception {
        Destination destination = Destination.parse(host, port);
        Decision decision = policy.decide(method == null ? Target.tunnel(destination) : new Target(destination, method, path));
        return decision.outcome();
    }

    @Test
    void specExampleLoadsKeyByKey() throws Exception {
        Path file = resource("good/full.yaml");
        MesaConfig config = loadOk(file, Overrides.NONE);

        assertEquals(file, config.source());
        assertEquals("P2", config.profile().name());
        assertEquals(List.of("N1", "N2"), config.profile().egress());
        assertEquals("N1", config.egress().name());
        assertEquals(new HostAndPort("127.0.0.1", 3128), config.listen());
        assertEquals(new HostAndPort("127.0.0.1", 9090), config.admin());

        Rule allow = config.allow().get(0);
        assertEquals(1, config.allow().size());
        assertEquals("allow[0]", allow.name());
        assertEquals("*.example.org", allow.host().toString());
        assertEquals(Set.of(443), allow.ports());
        assertEquals(Set.of("GET", "HEAD"), allow.methods());
        assertEquals(List.of("/api/**"), allow.paths().stream().map(Object::toString).collect(Collectors.toList()));
        Rule deny = config.deny().get(0);
        assertEquals("deny[0]", deny.name());
        assertEquals("uploads.example.org", deny.host().toString());
        assertEquals(Set.of(), deny.ports(), "a deny entry without ports covers every port");

        assertEquals(new MesaConfig.Network(List.of(), Duration.ofSeconds(5), Duration.ofSeconds(10)), config.network());
        assertEquals(new MesaConfig.Tls(Path.of("/run/mesa-egress/ca.pem"), Path.of("/run/mesa-egress/ca.key"), null, InterceptMode.AUTO, true),
                config.tls());

        CredentialSpec anthropic = config.credentials().get(0);
        assertEquals(1, config.credentials().size());
        assertEquals("anthropic", anthropic.name());
        assertEquals(List.of("api.anthropic.com"), anthropic.hosts().stream().map(Object::toString).collect(Collectors.toList()));
        assertEquals(Set.of(443), anthropic.ports());
        assertEquals(Set.of(), anthropic.methods());
        assertEquals(List.of(), anthropic.paths());
        assertEquals("sk-ant-sentinel", anthropic.sentinel());
        assertEquals("x-api-key", anthropic.header());
        assertEquals("{secret}", anthropic.format());
        assertEquals(new SecretRef("openbao", "secret/data/agents/anthropic", "api_key"), anthropic.secret());
        assertFalse(anthropic.allowPlaintext());

        assertEquals(new MesaConfig.Broker("https://openbao.openbao.svc:8200", "", null,
                new MesaConfig.Broker.Auth(AuthMethod.KUBERNETES, "kubernetes", "vice-analysis",
                        Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"), null, null), Duration.ofMinutes(5)), config.broker());
        assertEquals(Duration.ofMinutes(5), config.broker().settings().timeouts().kvTtl());
        assertEquals(MesaConfig.Audit.stdout(), config.audit());
        assertEquals(new MesaConfig.Limits(4096, 65536, Duration.ofSeconds(10), Duration.ofSeconds(60), 1 << 20, 64 << 20), config.limits());
    }

    @Test
    void specExamplePolicyIsDenyThenClassThenAllow() throws Exception {
        Policy policy = loadOk(resource("good/full.yaml"), Overrides.NONE).policy();

        assertEquals("P2", policy.profile());
        assertEquals(Outcome.ALLOW, decide(policy, "api.anthropic.com", 443, null, null), "class N1");
        assertEquals(Outcome.DENY, decide(policy, "api.openai.com", 443, null, null), "not in N1");
        assertEquals(Outcome.ALLOW, decide(policy, "docs.example.org", 443, "GET", "/api/v1"), "allow[0]");
        assertEquals(Outcome.DENY, decide(policy, "docs.example.org", 443, "POST", "/api/v1"), "allow[0] has methods");
        assertEquals(Outcome.DENY, decide(policy, "docs.example.org", 80, "GET", "/api/v1"), "allow[0] has ports");
        assertEquals(Outcome.DENY, decide(policy, "uploads.example.org", 443, "GET", "/api/v1"), "deny[0] before allow[0]");
    }

    @Test
    void minimalFileTakesEveryDefault() {
        Path file = resource("good/minimal.yaml");
        MesaConfig config = loadOk(file, Overrides.NONE);
        Path caDir = file.toAbsolutePath().getParent().resolve(".mesa-egress");

        assertEquals("P1", config.profile().name());
        assertEquals("N1", config.egress().name(), "the profile's first class");
        assertEquals(new HostAndPort("127.0.0.1", 3128), config.listen());
        assertEquals(new HostAndPort("127.0.0.1", 9090), config.admin());
        assertEquals(List.of(), config.allow());
        assertEquals(List.of(), config.deny());
        assertEquals(new MesaConfig.Network(List.of(), Duration.ofSeconds(5), Duration.ofSeconds(10)), config.network());
        assertEquals(new MesaConfig.Tls(caDir.resolve("ca.pem"), caDir.resolve("ca.key"), null, InterceptMode.AUTO, true), config.tls());
        assertEquals(List.of(), config.credentials());
        assertNull(config.broker());
        assertEquals(MesaConfig.Audit.stdout(), config.audit());
        assertEquals(new MesaConfig.Limits(4096, 65536, Duration.ofSeconds(10), Duration.ofSeconds(60), 1 << 20, 64 << 20), config.limits());
    }

    @Test
    void withoutAFileServesP1WithACaInTheWorkingDirectory() throws Exception {
        MesaConfig config = loadOk(null, Overrides.NONE);
        Path caDir = Path.of("").toAbsolutePath().resolve(".mesa-egress");

        assertNull(config.source());
        assertEquals("P1", config.profile().name());
        assertEquals("N1", config.egress().name());
        assertEquals("127.0.0.1:3128", config.listen().toString());
        assertEquals("127.0.0.1:9090", config.admin().toString());
        assertEquals(caDir.resolve("ca.pem"), config.tls().caCert());
        assertEquals(caDir.resolve("ca.key"), config.tls().caKey());
        assertEquals(Outcome.ALLOW, decide(config.policy(), "github.com", 443, null, null));
    }

    @Test
    void ruleDefaultsAndSpellings() throws Exception {
        MesaConfig config = loadOk(write("rules.yaml", String.join("\n",
                "version: 1",
                "allow:",
                "  - host: GitHub.IO.",
                "  - host: 203.0.113.0/24",
                "    ports: [8443, 8443]",
                "deny:",
                "  - host: evil.github.io",
                "    ports: [443]",
                "")), Overrides.NONE);

        assertEquals(List.of("allow[0]", "allow[1]"), config.allow().stream().map(Rule::name).collect(Collectors.toList()));
        assertEquals("github.io", config.allow().get(0).host().toString(), "canonical spelling");
        assertEquals(Set.of(80, 443), config.allow().get(0).ports());
        assertEquals(Set.of(8443), config.allow().get(1).ports());
        assertEquals(Set.of(443), config.deny().get(0).ports());
        assertEquals(Outcome.ALLOW, decide(config.policy(), "203.0.113.9", 8443, null, null));
    }

    @Test
    void relativePathsResolveAgainstTheFilesDirectory() throws Exception {
        Path file = write("paths.yaml", String.join("\n",
                "version: 1",
                "tls:",
                "  ca_cert: certs/ca.pem",
                "  ca_key: certs/ca.key",
                "  upstream_ca: ../trust/upstream.pem",
                "  intercept: all",
                "audit:",
                "  sink: logs/audit.jsonl",
                ""));
        MesaConfig config = loadOk(file, Overrides.NONE);

        assertEquals(dir.resolve("certs/ca.pem"), config.tls().caCert());
        assertEquals(dir.resolve("certs/ca.key"), config.tls().caKey());
        assertEquals(dir.getParent().resolve("trust/upstream.pem"), config.tls().upstreamCa());
        assertEquals(InterceptMode.ALL, config.tls().intercept());
        assertEquals(new MesaConfig.Audit.AppendTo(dir.resolve("logs/audit.jsonl")), config.audit().sink());
    }

    @Test
    void settingsInEveryUnit() throws Exception {
        MesaConfig config = loadOk(write("units.yaml", String.join("\n",
                "version: 1",
                "network:",
                "  allow_private: [127.0.0.1/32, \"fd00::/8\"]",
                "  dns_timeout: 250ms",
                "  connect_timeout: 1m",
                "limits:",
                "  max_connections: 10",
                "  max_header_bytes: 1024",
                "  header_timeout: 2s",
                "  idle_timeout: 1h",
                "  scan_hold_bytes: 65536",
                "  websocket_max_message_bytes: 2048",
                "  websocket_idle_timeout: 30s",
                "")), Overrides.NONE);

        assertEquals(List.of("127.0.0.1/32", "fd00::/8"), config.network().allowPrivate().stream().map(Object::toString).collect(Collectors.toList()));
        assertEquals(Duration.ofMillis(250), config.network().dnsTimeout());
        assertEquals(Duration.ofMinutes(1), config.network().connectTimeout());
        assertEquals(new MesaConfig.Limits(10, 1024, Duration.ofSeconds(2), Duration.ofHours(1), 65536, 64 << 20,
                MesaConfig.Limits.DEFAULT_FIRST_BYTE_TIMEOUT, 2048, Duration.ofSeconds(30)), config.limits());
    }

    @Test
    void credentialDefaultsAndAHostListedUnderAllow() throws Exception {
        MesaConfig config = loadOk(write("credentials.yaml", String.join("\n",
                "version: 1",
                "profile: P3",
                "allow:",
                "  - host: api.openai.com",
                "    ports: [443]",
                "  - host: \"*.example.org\"",
                "credentials:",
                "  - name: openai",
                "    hosts: [api.openai.com]",
                "    secret: \"env:OPENAI_API_KEY\"",
                "  - name: example_2",
                "    hosts: [\"*.api.example.org\", \"kc.cyverse.org\"]",
                "    secret: \"file:/run/secrets/example\"",
                "    methods: [GET]",
                "    paths: [\"/v1/**\"]",
                "    allow_plaintext: true",
                "    body_substitution: true",
                "")), Overrides.NONE);

        CredentialSpec openai = config.credentials().get(0);
        assertEquals(Set.of(443), openai.ports());
        assertEquals("Bearer {secret}", openai.format());
        assertNull(openai.sentinel());
        assertNull(openai.header());
        assertFalse(openai.allowPlaintext());
        assertFalse(openai.bodySubstitution(), "request bodies are not rewritten by default");
        assertEquals(new SecretRef("env", "OPENAI_API_KEY", null), openai.secret());
        CredentialSpec example = config.credentials().get(1);
        assertEquals(Set.of("GET"), example.methods());
        assertTrue(example.allowPlaintext());
        assertTrue(example.bodySubstitution());
        assertEquals(new SecretRef("file", "/run/secrets/example", null), example.secret());
    }

    @Test
    void credentialHostsCoveredByWiderAllowEntries() throws Exception {
        MesaConfig config = loadOk(write("covered.yaml", String.join("\n",
                "version: 1",
                "allow:",
                "  - host: 10.0.0.0/8",
                "  - host: \"*.example.org\"",
                "    ports: [443, 8443]",
                "credentials:",
                "  - name: internal",
                "    hosts: [10.1.0.0/16, 10.2.3.4, \"*.api.example.org\", \"*.example.org\"]",
                "    ports: [443, 9443]",
                "    secret: \"env:INTERNAL_TOKEN\"",
                "")), Overrides.NONE);

        assertEquals(4, config.credentials().get(0).hosts().size());
    }

    @Test
    void credentialsUnderN0ReachAnyPublicHost() throws Exception {
        MesaConfig config = loadOk(write("n0.yaml", String.join("\n",
                "version: 1",
                "profile: P1",
                "egress: N0",
                "credentials:",
                "  - name: anything",
                "    hosts: [\"api.openai.com\", \"*.example.net\"]",
                "    secret: \"env:TOKEN\"",
                "")), Overrides.NONE);

        assertEquals("N0", config.egress().name());
        assertTrue(config.egress().anyPublicHost());
    }

    @Test
    void p4MayChooseN3WithoutAllowEntries() throws Exception {
        MesaConfig config = loadOk(write("n3.yaml", "version: 1\nprofile: P4\negress: N3\nallow: []\n"), Overrides.NONE);

        assertEquals("N3", config.egress().name());
        assertEquals(Outcome.DENY, decide(config.policy(), "kc.cyverse.org", 443, null, null), "nothing leaves");
    }

    @Test
    void brokerMethodsAndTheirDefaults() throws Exception {
        String head = "version: 1\nbroker:\n  openbao:\n    address: http://127.0.0.1:8200\n    auth:\n";
        MesaConfig.Broker kubernetes = loadOk(write("k.yaml", head + "      method: kubernetes\n      role: agent\n"), Overrides.NONE).broker();
        MesaConfig.Broker jwt = loadOk(write("j.yaml", head + "      method: jwt\n      role: agent\n      jwt_file: kc.jwt\n"), Overrides.NONE).broker();
        MesaConfig.Broker token = loadOk(write("t.yaml", head + "      method: token\n      token_file: /run/bao-token\n      mount: custom\n"), Overrides.NONE).broker();
        MesaConfig.Broker wrapped = loadOk(write("w.yaml", head + "      method: wrapped\n      wrapped_token_file: wrapped\n"), Overrides.NONE).broker();

        assertEquals(new MesaConfig.Broker.Auth(AuthMethod.KUBERNETES, "kubernetes", "agent",
                Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"), null, null), kubernetes.auth());
        assertEquals("", kubernetes.namespace());
        assertEquals(new MesaConfig.Broker.Auth(AuthMethod.JWT, "jwt", "agent", dir.resolve("kc.jwt"), null, null), jwt.auth());
        assertEquals(new MesaConfig.Broker.Auth(AuthMethod.TOKEN, "custom", null, null, Path.of("/run/bao-token"), null), token.auth());
        assertEquals(new MesaConfig.Broker.Auth(AuthMethod.WRAPPED, "wrapped", null, null, null, dir.resolve("wrapped")), wrapped.auth());
    }

    @Test
    void aProfileFileGivenByPathRelativeToTheConfig() {
        MesaConfig config = loadOk(resource("good/site-profile.yaml"), Overrides.NONE);

        assertEquals("site-gpu", config.profile().name());
        assertEquals("Site GPU", config.profile().title());
        assertEquals("N2", config.egress().name(), "its first class");
    }

    @Test
    void dlpIsOffByDefaultAndTakesBuiltInAndSiteRules() throws Exception {
        MesaConfig defaults = loadOk(write("dlp-default.yaml", "version: 1\n"), Overrides.NONE);
        assertEquals(MesaConfig.Dlp.Mode.OFF, defaults.dlp().mode());
        assertEquals(org.cyverse.mesa.egress.injector.scan.DlpRules.all().size(), defaults.dlp().rules().size());

        MesaConfig config = loadOk(write("dlp.yaml", String.join("\n",
                "version: 1",
                "dlp:",
                "  mode: block",
                "  patterns:",
                "    - github-pat",
                "    - authorization-high-entropy",
                "    - {name: acme-token, regex: \"acme_[0-9a-f]{32}\"}",
                "")), Overrides.NONE);
        assertEquals(MesaConfig.Dlp.Mode.BLOCK, config.dlp().mode());
        assertEquals(List.of("github-pat", "acme-token"), config.dlp().rules().stream().map(r -> r.id()).collect(Collectors.toList()));
        assertTrue(config.dlp().authorizationEntropy());
    }

    @Test
    void kvRefreshSetsHowLongAKvValueIsUsed() throws Exception {
        MesaConfig config = loadOk(write("kv.yaml", String.join("\n",
                "version: 1",
                "broker:",
                "  openbao:",
                "    address: https://openbao.example:8200",
                "    kv_refresh: 30s",
                "    auth: {method: token, token_file: /run/token}",
                "")), Overrides.NONE);
        assertEquals(Duration.ofSeconds(30), config.broker().kvRefresh());
        assertEquals(Duration.ofSeconds(30), config.broker().settings().timeouts().kvTtl());
    }

    @Test
    void aMintedLiteLlmCredentialWithLimitsAndTheAdminControls() throws Exception {
        Path file = write("mint.yaml", String.join("\n",
                "version: 1",
                "profile: P2",
                "admin:",
                "  listen: 127.0.0.1:9191",
                "  token_file: admin/token",
                "  kill_file: /run/mesa-egress-kill/kill",
                "credentials:",
                "  - name: llm",
                "    hosts: [\"llm-api.cyverse.ai\"]",
                "    sentinel: \"sk-mesa-sentinel\"",
                "    header: Authorization",
                "    mint:",
                "      litellm:",
                "        url: https://llm-api.cyverse.ai",
                "        master_key: \"file:/run/secrets/litellm#master_key\"",
                "        duration: 8h",
                "        max_budget: 20",
                "        models: [\"claude-sonnet-4-5\", \"gpt-5\"]",
                "        metadata: {analysis: \"a-${MESA_ANALYSIS_ID}\", team: cyverse}",
                "        delete_on_stop: true",
                "    limits: {requests_per_minute: 600, concurrent: 16, request_bytes_per_hour: 500MiB, response_bytes_per_hour: 2 GB}",
                "  - name: plain",
                "    hosts: [\"api.anthropic.com\"]",
                "    secret: \"env:ANTHROPIC_API_KEY\"",
                "    limits:",
                "      concurrent: 4",
                "      response_bytes_per_hour: 1048576",
                ""));
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of("MESA_ANALYSIS_ID", "42")).load(file, Overrides.NONE);
        assertTrue(result.ok(), () -> result.problems().toString());
        MesaConfig config = result.config();

        assertEquals(new HostAndPort("127.0.0.1", 9191), config.admin());
        assertEquals(file.getParent().resolve("admin/token"), config.control().tokenFile(), "relative to the config file");
        assertEquals(Path.of("/run/mesa-egress-kill/kill"), config.control().killFile());
        org.cyverse.mesa.egress.injector.CredentialSpec llm = config.credentials().get(0);
        assertTrue(llm.minted());
        assertEquals(null, llm.secret());
        var mint = llm.kind(org.cyverse.mesa.egress.injector.mint.LiteLlmSpec.class);
        assertEquals("https://llm-api.cyverse.ai", mint.url().toString());
        assertEquals("file:/run/secrets/litellm#master_key", mint.masterKey().toString());
        assertEquals("8h", mint.duration());
        assertEquals(20.0, mint.maxBudget());
        assertEquals(List.of("claude-sonnet-4-5", "gpt-5"), mint.models());
        assertEquals(java.util.Map.of("analysis", "a-42", "team", "cyverse"), mint.metadata(), "${VAR} expanded from the environment");
        assertEquals("mesa-egress-llm", mint.keyAlias());
        assertTrue(mint.deleteOnStop());
        assertEquals(new CredentialLimits(600, 16, 500L << 20, 2_000_000_000L), llm.limits());
        assertEquals(new CredentialLimits(0, 4, 0, 1 << 20), config.credentials().get(1).limits(), "limits for a credential read from a secret too");
    }

    @Test
    void temporaryAwsCredentialsAreReadTogetherFromOpenBaosAwsEngine() throws Exception {
        Path file = write("sigv4-sts.yaml", String.join("\n",
                "version: 1",
                "profile: P2",
                "allow:",
                "  - host: osn.cyverse.org",
                "broker:",
                "  openbao:",
                "    address: https://openbao:8200",
                "    auth: {method: token, token_file: /run/token}",
                "credentials:",
                "  - name: osn",
                "    hosts: [\"osn.cyverse.org\"]",
                "    aws_sigv4:",
                "      sentinel_access_key_id: SNTLSENTINEL00000001",
                "      sentinel_secret_access_key: sentinel-secret-access-key-0123",
                "      access_key_id: \"openbao:aws/creds/osn#access_key\"",
                "      secret_access_key: \"openbao:aws/creds/osn#secret_key\"",
                "      session_token: \"openbao:aws/creds/osn#security_token\"",
                ""));
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of()).load(file, Overrides.NONE);
        assertTrue(result.ok(), () -> result.problems().toString());
        org.cyverse.mesa.egress.injector.CredentialSpec osn = result.config().credentials().get(0);
        assertEquals(null, osn.kind(org.cyverse.mesa.egress.injector.sigv4.SigV4Keys.class).accessKeyId(), "no key id is written: it is fetched");
        assertEquals(java.util.Map.of("access_key_id", org.cyverse.mesa.egress.injector.SecretRef.parse("openbao:aws/creds/osn#access_key"),
                "session_token", org.cyverse.mesa.egress.injector.SecretRef.parse("openbao:aws/creds/osn#security_token")), osn.parts());
        assertEquals(3, osn.needs().size(), "the broker is needed for all three: " + osn.needs());
        assertTrue(osn.source().contains("re-signed as the key id at openbao:aws/creds/osn#access_key"), osn.source());
        assertTrue(osn.source().contains("session token: openbao:aws/creds/osn#security_token"), osn.source());
    }

    @Test
    void aSessionTokenMayComeFromFilesOfItsOwnAsKubernetesMountsThem() throws Exception {
        Path file = write("sigv4-files.yaml", String.join("\n",
                "version: 1",
                "profile: P2",
                "allow:",
                "  - host: osn.cyverse.org",
                "credentials:",
                "  - name: osn",
                "    hosts: [\"osn.cyverse.org\"]",
                "    aws_sigv4:",
                "      sentinel_access_key_id: SNTLSENTINEL00000001",
                "      sentinel_secret_access_key: sentinel-secret-access-key-0123",
                "      access_key_id: \"file:/run/secrets/osn/access_key_id\"",
                "      secret_access_key: \"file:/run/secrets/osn/secret_access_key\"",
                "      session_token: \"file:/run/secrets/osn/session_token\"",
                ""));
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of()).load(file, Overrides.NONE);
        assertTrue(result.ok(), () -> result.problems().toString());
        assertEquals("file:/run/secrets/osn/session_token", result.config().credentials().get(0).kind(org.cyverse.mesa.egress.injector.sigv4.SigV4Keys.class).sessionToken().toString());
    }

    @Test
    void anAwsSigV4CredentialTakesItsSentinelAndSecretFromItsBlock() throws Exception {
        Path file = write("sigv4.yaml", String.join("\n",
                "version: 1",
                "profile: P2",
                "allow:",
                "  - host: osn.cyverse.org",
                "  - host: \"*.osn.cyverse.org\"",
                "credentials:",
                "  - name: osn",
                "    hosts: [\"osn.cyverse.org\", \"*.osn.cyverse.org\"]",
                "    aws_sigv4:",
                "      sentinel_access_key_id: SNTLSENTINEL00000001",
                "      sentinel_secret_access_key: sentinel-secret-access-key-0123",
                "      access_key_id: AKIAREALKEY000000001",
                "      secret_access_key: \"file:/run/secrets/osn#secret_key\"",
                ""));
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of()).load(file, Overrides.NONE);
        assertTrue(result.ok(), () -> result.problems().toString());
        org.cyverse.mesa.egress.injector.CredentialSpec osn = result.config().credentials().get(0);
        assertEquals(new org.cyverse.mesa.egress.injector.sigv4.SigV4Keys("SNTLSENTINEL00000001", "sentinel-secret-access-key-0123",
                "AKIAREALKEY000000001"), osn.kind(org.cyverse.mesa.egress.injector.sigv4.SigV4Keys.class));
        assertEquals("SNTLSENTINEL00000001", osn.sentinel(), "the sentinel key id is kept from other hosts like any sentinel");
        assertEquals("file:/run/secrets/osn#secret_key", osn.secret().toString());
        assertEquals(null, osn.header(), "nothing is set: the request is re-signed");
        assertTrue(osn.source().contains("re-signed as AKIAREALKEY000000001"), osn.source());
        assertFalse(osn.source().contains("sentinel-secret-access-key"), osn.source());
    }

    @Test
    void aGitHubAppCredentialReachesTheApiAndGitHubComByDefault() throws Exception {
        Path file = write("github.yaml", String.join("\n",
                "version: 1",
                "profile: P2",
                "credentials:",
                "  - name: github",
                "    sentinel: proxy-injected",
                "    github_app:",
                "      app_id: 123456",
                "      private_key: \"file:/run/secrets/github-app.pem\"",
                "      installation_id: 42",
                "      repositories: [cyverse/mesa-sandbox, CyVerse/Notebooks]",
                "      branch: agent/job-17",
                ""));
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of()).load(file, Overrides.NONE);
        assertTrue(result.ok(), () -> result.problems().toString());
        org.cyverse.mesa.egress.injector.CredentialSpec github = result.config().credentials().get(0);
        assertEquals("[api.github.com, github.com]", github.hosts().toString());
        assertEquals(java.util.Set.of(443), github.ports());
        var app = github.kind(org.cyverse.mesa.egress.injector.github.GitHubAppSpec.class);
        assertEquals("https://api.github.com", app.apiUrl().toString());
        assertEquals("123456", app.appId());
        assertEquals(42L, app.installationId());
        assertEquals(java.util.List.of("cyverse/mesa-sandbox", "CyVerse/Notebooks"), app.repositories());
        assertEquals("{contents=write, pull_requests=write, metadata=read}", app.permissions().toString(), "what a job needs to push and open a PR");
        assertEquals("refs/heads/agent/job-17", app.rule().describe());
        assertTrue(app.graphql());
        assertFalse(github.injectedByInjector(), "the github step puts it on, in the form each host reads");
        assertTrue(github.source().contains("installation 42") && github.source().contains("file:/run/secrets/github-app.pem"),
                github.source());
    }

    @Test
    void aGitHubAppCredentialTakesTheJobsBranchFromTheEnvironmentAndForcePush() throws Exception {
        Path file = write("github-env.yaml", String.join("\n",
                "version: 1",
                "profile: P2",
                "credentials:",
                "  - name: github",
                "    github_app:",
                "      app_id: Iv23liABCDEF012345",
                "      private_key: \"env:GITHUB_APP_KEY\"",
                "      installation_id: 42",
                "      repositories: [\"${MESA_REPO}\"]",
                "      branch: [\"agent/${MESA_JOB}\", \"agent/${MESA_JOB}/*\"]",
                "      force_push: true",
                "      graphql: false",
                "      api_url: https://ghe.example.org/api/v3",
                ""));
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of("MESA_JOB", "job-17", "MESA_REPO", "acme/widgets"))
                .load(file, Overrides.NONE);
        assertFalse(result.ok(), "ghe.example.org is not in P2's egress class: the credential's host must be allowed");
        assertTrue(result.problems().toString().contains("credentials[0].hosts: ghe.example.org"), result.problems().toString());

        Files.writeString(file, Files.readString(file).replace("credentials:", "allow:\n  - host: ghe.example.org\ncredentials:"));
        ConfigResult allowed = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of("MESA_JOB", "job-17", "MESA_REPO", "acme/widgets"))
                .load(file, Overrides.NONE);
        assertTrue(allowed.ok(), () -> allowed.problems().toString());
        org.cyverse.mesa.egress.injector.CredentialSpec github = allowed.config().credentials().get(0);
        var app = github.kind(org.cyverse.mesa.egress.injector.github.GitHubAppSpec.class);
        assertEquals("[ghe.example.org]", github.hosts().toString(), "GitHub Enterprise Server: the API and git on one host");
        assertEquals(java.util.List.of("acme/widgets"), app.repositories());
        assertEquals("refs/heads/agent/job-17 or refs/heads/agent/job-17/*", app.rule().describe());
        assertTrue(app.rule().forcePush());
        assertFalse(app.graphql());
        assertEquals("Iv23liABCDEF012345", app.appId());

        ConfigResult unset = new ConfigLoader(ProfileCatalog.bundled(), java.util.Map.of("MESA_REPO", "acme/widgets")).load(file, Overrides.NONE);
        assertTrue(unset.problems().toString().contains("${MESA_JOB} is not set in the proxy's environment"), unset.problems().toString());
    }

    @Test
    void byteLimitsTakeWhatCheckPrints() throws Exception {
        MesaConfig config = loadOk(write("sizes.yaml", "version: 1\nprofile: P2\ncredentials:\n"
                + "  - name: a\n    hosts: [api.anthropic.com]\n    secret: \"env:A\"\n"
                + "    limits: {request_bytes_per_hour: 1.5 GiB, response_bytes_per_hour: \"1048576\"}\n"), Overrides.NONE);
        CredentialLimits limits = config.credentials().get(0).limits();
        assertEquals(3L << 29, limits.requestBytesPerHour());
        assertEquals(1 << 20, limits.responseBytesPerHour());
        assertEquals("1.5 GiB sent/hour, 1 MiB received/hour", limits.describe(), "what check prints reads back the same");
    }

    @Test
    void approvalsUnderAnA1ProfileAndTheirDefaults() throws Exception {
        MesaConfig config = loadOk(write("approvals.yaml", String.join("\n", "version: 1", "profile: P2",
                "admin: {listen: 127.0.0.1:9090, token_file: admin/token}",
                "approvals:", "  enabled: true", "  hold: 30s", "  state_file: state/approvals.json", "  max_pending: 20",
                "  webhook: {url: https://inbox.example.org/hook, secret: \"file:/run/secrets/hook#key\"}", "")), Overrides.NONE);
        MesaConfig.Approvals a = config.approvals();
        assertTrue(a.enabled());
        assertEquals(Duration.ofMinutes(15), a.pendingTtl(), "SPEC.md's default");
        assertEquals(Duration.ofSeconds(30), a.hold());
        assertEquals(config.source().getParent().resolve("state/approvals.json"), a.stateFile());
        assertEquals(20, a.maxPending());
        assertEquals("https://inbox.example.org/hook", a.webhook().url().toString());
        assertEquals("file:/run/secrets/hook#key", a.webhook().secret().toString());
        assertEquals(MesaConfig.Approvals.OFF, loadOk(write("none.yaml", "version: 1\nprofile: P2\n"), Overrides.NONE).approvals());
        assertEquals(Duration.ZERO, loadOk(write("zero.yaml", "version: 1\nprofile: P1\nadmin: {listen: 127.0.0.1:9090, token_file: t}\n"
                + "approvals: {enabled: true, hold: 0s}\n"), Overrides.NONE).approvals().hold(), "0s: refused at once");
    }

    @Test
    void aCredentialWithoutLimitsHasNone() throws Exception {
        MesaConfig config = loadOk(write("nolimits.yaml", "version: 1\nprofile: P2\ncredentials:\n  - name: a\n    hosts: [api.anthropic.com]\n"
                + "    secret: \"env:A\"\n"), Overrides.NONE);
        assertEquals(CredentialLimits.NONE, config.credentials().get(0).limits());
    }

    @Test
    void adminAsAnAddressAloneHasNoControls() throws Exception {
        MesaConfig config = loadOk(write("admin.yaml", "version: 1\nadmin: 127.0.0.1:9191\n"), Overrides.NONE);
        assertEquals(new HostAndPort("127.0.0.1", 9191), config.admin());
        assertEquals(MesaConfig.Control.NONE, config.control());
    }

    @Test
    void aLiteLlmUrlOverPlainHttpIsAcceptedOnlyToALoopbackAddress() throws Exception {
        for (String url : List.of("http://127.0.0.1:4000", "http://127.9.8.7:4000", "http://[::1]:4000", "http://localhost:4000")) {
            Path file = write("loopback.yaml", String.join("\n",
                    "version: 1",
                    "profile: P2",
                    "credentials:",
                    "  - name: llm",
                    "    hosts: [\"llm-api.cyverse.ai\"]",
                    "    mint: {litellm: {url: \"" + url + "\", master_key: \"env:LITELLM_MASTER_KEY\"}}",
                    ""));
            ConfigResult result = ConfigFixtures.load(file, Overrides.NONE);
            assertTrue(result.ok(), () -> url + ": " + result.problems());
        }
    }

    @Test
    void oauth2CredentialsForTheUsersCyVerseServices() throws Exception {
        Path file = write("oauth2.yaml", String.join("\n",
                "version: 1",
                "profile: P3",
                "credentials:",
                "  - name: cyverse-de",
                "    hosts: [\"de.cyverse.org\"]",
                "    sentinel: auto",
                "    oauth2:",
                "      issuer: https://kc.cyverse.org/realms/CyVerse",
                "      client_id: mesa-agent-proxy",
                "      client_secret: \"file:/run/secrets/kc#client_secret\"",
                "      grant: token_exchange",
                "      subject_token: \"file:/var/run/secrets/tokens/kc-token\"",
                "      audience: de",
                "  - name: cyverse-data",
                "    hosts: [\"data.cyverse.org\"]",
                "    sentinel: auto",
                "    oauth2:",
                "      token_url: https://kc.cyverse.org/realms/CyVerse/protocol/openid-connect/token",
                "      client_id: mesa-agent-proxy",
                "      client_auth: client_secret_post",
                "      client_secret: \"file:/run/secrets/kc#client_secret\"",
                "      grant: refresh_token",
                "      refresh_token: \"file:/run/secrets/user#offline_token\"",
                "      scope: openid offline_access",
                "      revoke_url: https://kc.cyverse.org/realms/CyVerse/protocol/openid-connect/revoke",
                "      revoke_refresh_token: true",
                ""));
        MesaConfig config = loadOk(file, Overrides.NONE);

        CredentialSpec de = config.credentials().get(0);
        var exchange = de.kind(org.cyverse.mesa.egress.injector.oauth2.OAuth2Spec.class);
        assertTrue(de.minted(), "the proxy gets the tokens");
        assertEquals("Authorization", de.header(), "Bearer tokens go in Authorization unless the credential says otherwise");
        assertEquals("Bearer {secret}", de.format());
        assertEquals(org.cyverse.mesa.egress.injector.oauth2.Grant.TOKEN_EXCHANGE, exchange.grant());
        assertEquals(org.cyverse.mesa.egress.injector.oauth2.ClientAuth.CLIENT_SECRET_BASIC, exchange.clientAuth(), "a secret means Basic by default");
        assertEquals("urn:ietf:params:oauth:token-type:jwt", exchange.subjectTokenType(), "RFC 8693's JWT type by default");
        assertEquals("de", exchange.audience());
        assertEquals(List.of("file:/run/secrets/kc#client_secret", "file:/var/run/secrets/tokens/kc-token"),
                de.needs().stream().map(SecretRef::toString).toList());
        assertTrue(de.source().contains("grant token_exchange") && de.source().contains("audience de"), de.source());

        String[] parts = de.sentinel().split("\\.");
        assertEquals(3, parts.length, "sentinel: auto is shaped as a JWT: " + de.sentinel());
        String payload = new String(java.util.Base64.getUrlDecoder().decode(parts[1]), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(payload.contains("\"aud\":\"de\"") && payload.contains("\"exp\":4102444800"), payload);
        CredentialSpec data = config.credentials().get(1);
        assertFalse(de.sentinel().equals(data.sentinel()), "each credential its own sentinel");
        assertTrue(new String(java.util.Base64.getUrlDecoder().decode(data.sentinel().split("\\.")[1])).contains("\"aud\":\"data.cyverse.org\""),
                "without an audience, the first host");
        assertEquals(de.sentinel(), loadOk(file, Overrides.NONE).credentials().get(0).sentinel(), "the same at every start");
        var refresh = data.kind(org.cyverse.mesa.egress.injector.oauth2.OAuth2Spec.class);
        assertEquals(org.cyverse.mesa.egress.injector.oauth2.ClientAuth.CLIENT_SECRET_POST, refresh.clientAuth());
        assertEquals("openid offline_access", refresh.scope());
        assertTrue(refresh.revokeRefreshToken());
    }
}
