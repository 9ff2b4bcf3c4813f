package org.cyverse.mesa.egress.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The commands of SPEC.md "Command line", their output and exit codes. */
class MainTest extends CommandTestBase {


    @Test
    void checkAllowsAnN1HostAndPrintsOneJsonObject() throws Exception {
        assertEquals(0, run("check", "--profile", "P2", "https://api.github.com/repos/x"));
        JsonNode json = new ObjectMapper().readTree(out());
        assertEquals("allow", json.get("decision").asText());
        assertEquals("allowed", json.get("reason").asText());
        assertEquals("class N1: api.github.com", json.get("rule").asText());
        assertEquals("tunnel", json.get("mode").asText());
        assertTrue(json.get("credential").isNull());
    }

    @Test
    void checkDeniesMetadataWithExit3() throws Exception {
        assertEquals(3, run("check", "--profile", "P2", "http://169.254.169.254/latest"));
        assertEquals("host_not_allowed", new ObjectMapper().readTree(out()).get("reason").asText());

        reset();
        assertEquals(3, run("check", "--profile", "P0", "http://0xa9fea9fe/"));
        JsonNode json = new ObjectMapper().readTree(out());
        assertEquals("address_not_allowed", json.get("reason").asText());
        assertEquals("169.254.169.254", json.get("host").asText());
    }

    @Test
    void checkWithAConfigFileUsesItsAllowList() throws Exception {
        Path config = dir.resolve("c.yaml");
        Files.writeString(config, "version: 1\nprofile: P3\nallow:\n  - host: \"*.example.org\"\n    methods: [GET]\n");
        assertEquals(0, run("check", "--config", config.toString(), "http://a.example.org/x"));
        reset();
        assertEquals(3, run("check", "--config", config.toString(), "--method", "POST", "http://a.example.org/x"));
        assertEquals("method_not_allowed", new ObjectMapper().readTree(out()).get("reason").asText());
    }

    /** What run would refuse, validate says first, both naming file, line and key; run exits 2 before it creates anything. */
    @Test
    void validateAndRunRefuseTheFilesRunWouldFailOn() throws Exception {
        Path key = dir.resolve("key.pem");
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n");
        Path config = dir.resolve("files.yaml");
        Files.writeString(config, "version: 1\nlisten: 127.0.0.1:0\nadmin: 127.0.0.1:0\ntls:\n  upstream_ca: key.pem\n"
                + "audit:\n  sink: nowhere/audit.jsonl\n");
        assertEquals(2, run("validate", config.toString()));
        assertTrue(out().contains(config + ":5: tls.upstream_ca: " + key + " holds a private key"), out());
        assertTrue(out().contains(config + ":7: audit.sink: its directory " + dir.resolve("nowhere") + " does not exist"), out());

        reset();
        assertEquals(2, run("run", "--config", config.toString()));
        assertTrue(err().contains(":5: tls.upstream_ca:") && err().contains(":7: audit.sink:"), err());
        assertTrue(!Files.exists(dir.resolve("mesa-egress-ca")) && !Files.exists(dir.resolve("ca.pem")), "nothing was created");

        // A tls.ca_cert that is not a CA (a leaf made with keytool).
        Path store = dir.resolve("leaf.p12");
        Path leaf = dir.resolve("leaf.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        for (List<String> command : List.of(
                List.of(keytool, "-genkeypair", "-alias", "leaf", "-keyalg", "EC", "-dname", "CN=leaf", "-ext", "bc=ca:false",
                        "-keystore", store.toString(), "-storepass", "changeit", "-storetype", "PKCS12"),
                List.of(keytool, "-exportcert", "-rfc", "-alias", "leaf", "-keystore", store.toString(), "-storepass", "changeit",
                        "-file", leaf.toString()))) {
            assertEquals(0, new ProcessBuilder(command).redirectErrorStream(true).start().waitFor());
        }
        Files.writeString(dir.resolve("leaf.key"), "unused");
        Path ca = dir.resolve("ca.yaml");
        Files.writeString(ca, "version: 1\ntls:\n  ca_cert: leaf.pem\n  ca_key: leaf.key\n");
        reset();
        assertEquals(2, run("validate", ca.toString()));
        assertTrue(out().contains(ca + ":3: tls.ca_cert: " + leaf + " is not a conformant CA certificate"), out());
        assertTrue(out().contains("basicConstraints does not say CA:TRUE"), out());
    }

    /** A CA key that belongs to another certificate, and a CA that cannot be created: validate and run say so, naming the key. */
    @Test
    void validateAndRunRefuseACaPairThatRunCouldNotUse() throws Exception {
        assertEquals(0, run("ca", "init", "--out", dir.resolve("one").toString()));
        assertEquals(0, run("ca", "init", "--out", dir.resolve("two").toString()));
        Path config = dir.resolve("pair.yaml");
        Files.writeString(config, "version: 1\nlisten: 127.0.0.1:0\nadmin: 127.0.0.1:0\ntls:\n  ca_cert: one/ca.pem\n"
                + "  ca_key: two/ca.key\n");
        reset();
        assertEquals(2, run("validate", config.toString()));
        assertTrue(out().contains(config + ":6: tls.ca_key: CA key " + dir.resolve("two/ca.key") + " does not belong to the certificate "
                + dir.resolve("one/ca.pem")), out());
        reset();
        assertEquals(2, run("run", "--config", config.toString()));
        assertTrue(err().contains(":6: tls.ca_key: CA key"), err());

        // Half a pair: run would refuse it rather than make a new key the agents do not trust.
        Files.writeString(config, "version: 1\ntls:\n  ca_cert: one/ca.pem\n  ca_key: one/missing.key\n");
        reset();
        assertEquals(2, run("validate", config.toString()));
        assertTrue(out().contains(config + ":4: tls.ca_key: CA key " + dir.resolve("one/missing.key") + " is missing but its certificate"), out());

        // Neither exists, and the place to create them is under a regular file.
        Files.writeString(dir.resolve("plain"), "a file, not a directory");
        Files.writeString(config, "version: 1\ntls:\n  ca_cert: plain/ca/ca.pem\n  ca_key: plain/ca/ca.key\n");
        reset();
        assertEquals(2, run("validate", config.toString()));
        assertTrue(out().contains(config + ":3: tls.ca_cert: " + dir.resolve("plain/ca/ca.pem") + " does not exist and cannot be created ("
                + dir.resolve("plain") + " is not a directory)"), out());
        reset();
        assertEquals(2, run("run", "--config", config.toString()));
        assertTrue(err().contains(":3: tls.ca_cert:"), err());
    }

    /** An OpenBao CA file that is not there, and an approvals state file in a missing directory: run would fail on both. */
    @Test
    void validateAndRunRefuseAMissingOpenBaoCaAndAStateFileWithoutItsDirectory() throws Exception {
        Files.writeString(dir.resolve("token"), "an-admin-token-of-32-characters!\n");
        Path config = dir.resolve("broker.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\nlisten: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\n  token_file: token\n"
                + "approvals:\n  enabled: true\n  state_file: gone/approvals.json\n"
                + "broker:\n  openbao:\n    address: https://openbao.example.org:8200\n    ca_cert: missing-ca.pem\n"
                + "    auth:\n      method: token\n      token_file: bao-token\n");
        assertEquals(2, run("validate", config.toString()));
        assertTrue(out().contains(config + ":9: approvals.state_file: its directory " + dir.resolve("gone") + " does not exist"), out());
        assertTrue(out().contains(config + ":13: broker.openbao.ca_cert: " + dir.resolve("missing-ca.pem") + " cannot be read (no such file)"),
                out());
        reset();
        assertEquals(2, run("run", "--config", config.toString()));
        assertTrue(err().contains(":9: approvals.state_file:") && err().contains(":13: broker.openbao.ca_cert:"), err());
    }

    /** The admin port beyond loopback without a token (issue 17, item 8): whatever reaches the pod would reach it. */
    @Test
    void runRefusesAnAdminAddressBeyondLoopbackWithoutTheToken() throws Exception {
        assertEquals(2, run("run", "--listen", "127.0.0.1:0", "--admin", "0.0.0.0:0"));
        assertTrue(err().contains("--admin: listens on 0.0.0.0, beyond loopback, without admin.token_file"), err());
        Files.writeString(dir.resolve("token"), "an-admin-token-of-32-characters!\n");
        Path config = dir.resolve("open.yaml");
        Files.writeString(config, "version: 1\nlisten: 127.0.0.1:0\nadmin:\n  listen: 0.0.0.0:0\n  token_file: token\n");
        reset();
        assertEquals(0, run("validate", config.toString()), "with the token it may listen wider: " + out());
    }

    @Test
    void trustRefusesAShareDirBesideTheCaKey() throws Exception {
        Path ca = dir.resolve("ca");
        assertEquals(0, run("ca", "init", "--out", ca.toString()));
        reset();
        assertEquals(2, run("trust", "--ca-cert", ca.resolve("ca.pem").toString(), "--share-dir", ca.toString()));
        assertTrue(err().contains("holds a private key (ca.key)"), err());
        assertTrue(!Files.exists(ca.resolve("bundle.pem")), "nothing written beside the key");
        reset();
        assertEquals(2, run("trust", "--ca-cert", dir.resolve("missing.pem").toString(), "--share-dir", dir.resolve("share").toString()));
        assertTrue(err().contains("cannot read " + dir.resolve("missing.pem") + ": no such file"), "says what went wrong, not the path twice: " + err());
    }

    @Test
    void checkRefusesALowercaseMethodNamingTheSpellingToUse() {
        assertEquals(2, run("check", "--profile", "P2", "--method", "get", "https://api.github.com/"));
        assertTrue(err().contains("--method get") && err().contains("e.g. GET"), err());
    }

    @Test
    void aLowercaseProfileGetsADidYouMean() {
        assertEquals(2, run("check", "--profile", "p2", "https://api.github.com/"));
        assertTrue(err().contains("did you mean \"P2\"?"), err());
    }

    @Test
    void checkRejectsABadUrlWithExit2() {
        assertEquals(2, run("check", "ftp://example.org/"));
        assertTrue(err().contains("http://"), err());
    }

    @Test
    void validateNamesEveryProblemWithFileAndLine() throws Exception {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\nlimits:\n  max_conections: 5\nallow:\n  - host: \"a.*.org\"\n");
        assertEquals(2, run("validate", config.toString()));
        String[] lines = out().trim().split("\n");
        assertEquals(2, lines.length, out());
        assertTrue(lines[0].startsWith(config + ":4: limits.max_conections: "), lines[0]);
        assertTrue(lines[0].contains("max_connections"), "suggests the right key: " + lines[0]);
        assertTrue(lines[1].startsWith(config + ":6: allow[0].host: "), lines[1]);
    }

    @Test
    void validateAcceptsAGoodFile() throws Exception {
        Path config = dir.resolve("good.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\negress: N2\n");
        assertEquals(0, run("validate", config.toString()));
        assertTrue(out().contains("valid") && out().contains("N2"), out());
    }

    @Test
    void runWithABadConfigExits2NamingTheKey() throws Exception {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "version: 1\nprofile: P9\n");
        assertEquals(2, run("run", "--config", config.toString()));
        assertTrue(err().contains(":2: profile: "), err());
    }

    @Test
    void runWithAnUnreadableOrShortAdminTokenExits2NamingTheKey() throws Exception {
        Path config = dir.resolve("admin.yaml");
        Files.writeString(config, "version: 1\nlisten: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\n  token_file: token\n");
        assertEquals(2, run("run", "--config", config.toString()));
        assertTrue(err().contains("admin.token_file") && err().contains("cannot be read"), err());

        Files.writeString(dir.resolve("token"), "short\n");
        assertEquals(2, run("run", "--config", config.toString()));
        assertTrue(err().contains("at least 16 characters"), err());
    }

    @Test
    void unknownCommandsAndFlagsExit2WithUsage() {
        assertEquals(2, run("serve"));
        assertTrue(err().contains("usage: mesa-egress"), err());
        assertEquals(2, run("check", "--bogus", "x", "http://a/"));
        assertTrue(err().contains("unknown flag --bogus"), err());
    }

    @Test
    void versionPrintsAVersion() {
        assertEquals(0, run("version"));
        assertTrue(out().startsWith("mesa-egress "), out());
    }

    @Test
    void checkNamesTheCredentialAndTheInterceptionMode() throws Exception {
        Path config = dir.resolve("cred.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\ncredentials:\n  - name: anthropic\n    hosts: [\"api.anthropic.com\"]\n"
                + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n    secret: \"env:ANTHROPIC_API_KEY\"\n");
        assertEquals(0, run("check", "--config", config.toString(), "--method", "POST", "https://api.anthropic.com/v1/messages"));
        JsonNode json = new ObjectMapper().readTree(out());
        assertEquals("intercept", json.get("mode").asText());
        assertEquals("anthropic", json.get("credential").asText());

        reset();
        assertEquals(0, run("check", "--config", config.toString(), "https://github.com/cyverse/repo.git"));
        json = new ObjectMapper().readTree(out());
        assertEquals("tunnel", json.get("mode").asText());
        assertTrue(json.get("credential").isNull());
    }

    @Test
    void checkAndValidateReportMintedCredentialsAndTheirLimits() throws Exception {
        Path config = dir.resolve("minted.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\ncredentials:\n  - name: llm\n    hosts: [\"llm-api.cyverse.ai\"]\n"
                + "    sentinel: \"sk-mesa-sentinel\"\n    header: Authorization\n"
                + "    mint:\n      litellm:\n        url: https://llm-api.cyverse.ai\n"
                + "        master_key: \"file:/run/secrets/litellm#master_key\"\n        duration: 8h\n        max_budget: 20.0\n"
                + "        models: [\"gpt-5\"]\n"
                + "    limits: {requests_per_minute: 600, concurrent: 16}\n"
                + "  - name: anthropic\n    hosts: [\"api.anthropic.com\"]\n    header: x-api-key\n    format: \"{secret}\"\n"
                + "    secret: \"env:ANTHROPIC_API_KEY\"\n");
        assertEquals(0, run("check", "--config", config.toString(), "--method", "POST", "https://llm-api.cyverse.ai/chat/completions"));
        JsonNode applied = new ObjectMapper().readTree(out()).get("credentials").get(0);
        assertEquals("llm", applied.get("name").asText());
        assertEquals("minted: litellm virtual key from https://llm-api.cyverse.ai (master key file:/run/secrets/litellm#master_key;"
                + " duration 8h, max_budget 20.0 USD, models gpt-5)", applied.get("source").asText());
        assertEquals("600 requests/min, 16 concurrent", applied.get("limits").asText());

        reset();
        assertEquals(0, run("check", "--config", config.toString(), "https://api.anthropic.com/v1/messages"));
        applied = new ObjectMapper().readTree(out()).get("credentials").get(0);
        assertEquals("secret: env:ANTHROPIC_API_KEY", applied.get("source").asText());
        assertEquals("none", applied.get("limits").asText());

        reset();
        assertEquals(0, run("validate", config.toString()));
        assertTrue(out().contains("2 credentials (1 minted, 1 with limits)"), out());
    }

    @Test
    void checkShowsAnOauth2CredentialsGrantAndSentinelsPrintsItsJwtShapedPlaceholder() throws Exception {
        Path config = dir.resolve("oauth2.yaml");
        Files.writeString(config, "version: 1\nprofile: P3\ncredentials:\n  - name: cyverse-de\n    hosts: [\"de.cyverse.org\"]\n"
                + "    sentinel: auto\n    oauth2:\n      issuer: https://kc.cyverse.org/realms/CyVerse\n      client_id: mesa-agent-proxy\n"
                + "      client_secret: \"file:/run/secrets/kc#client_secret\"\n      grant: token_exchange\n"
                + "      subject_token: \"file:/var/run/secrets/tokens/kc-token\"\n      audience: de\n"
                + "  - name: anthropic\n    hosts: [\"llm-api.cyverse.ai\"]\n    secret: \"env:LLM_KEY\"\n");
        assertEquals(0, run("check", "--config", config.toString(), "https://de.cyverse.org/terrain/secured/user-info"));
        JsonNode applied = new ObjectMapper().readTree(out()).get("credentials").get(0);
        assertEquals("cyverse-de", applied.get("name").asText());
        assertEquals("minted: oauth2 access tokens from https://kc.cyverse.org/realms/CyVerse (discovery); grant token_exchange;"
                + " client mesa-agent-proxy (client_secret_basic, secret file:/run/secrets/kc#client_secret); subject token"
                + " file:/var/run/secrets/tokens/kc-token; audience de; revoked at the issuer's revocation endpoint",
                applied.get("source").asText());

        reset();
        assertEquals(0, run("sentinels", "--config", config.toString()));
        String[] line = out().strip().split(" ");
        assertEquals("cyverse-de", line[0], "only credentials with a sentinel: " + out());
        assertEquals(3, line[1].split("\\.").length, "a JWT's three parts: " + line[1]);
        assertEquals(1, out().strip().lines().count(), out());
        String sentinel = line[1];

        reset();
        assertEquals(0, run("sentinels", "--config", config.toString(), "cyverse-de"));
        assertEquals(sentinel, out().strip(), "the same placeholder alone, for $(...) in a launcher");
        reset();
        assertEquals(2, run("sentinels", "--config", config.toString(), "anthropic"));
        assertTrue(err().contains("credential anthropic has no sentinel"), err());
        reset();
        assertEquals(2, run("sentinels", "--config", config.toString(), "nope"));
        assertTrue(err().contains("no credential is named \"nope\"; credentials: cyverse-de, anthropic"), err());
    }

    @Test
    void checkShowsAnAwsSigV4CredentialForItsHosts() throws Exception {
        Path config = dir.resolve("osn.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\nallow:\n  - host: osn.cyverse.org\ncredentials:\n  - name: osn\n"
                + "    hosts: [osn.cyverse.org]\n    aws_sigv4:\n      sentinel_access_key_id: SNTLSENTINEL00000001\n"
                + "      sentinel_secret_access_key: sentinel-secret-access-key-0123\n      access_key_id: AKIAREALKEY000000001\n"
                + "      secret_access_key: \"env:OSN_SECRET_KEY\"\n");
        assertEquals(0, run("check", "--config", config.toString(), "--method", "PUT", "https://osn.cyverse.org/bucket/key"));
        JsonNode json = new ObjectMapper().readTree(out());
        assertEquals("intercept", json.get("mode").asText());
        JsonNode osn = json.get("credentials").get(0);
        assertEquals("osn", osn.get("name").asText());
        assertEquals("re-signs requests signed with sentinel key id SNTLSENTINEL00000001 (AWS SigV4)", osn.get("actions").get(0).asText());
        assertEquals("aws_sigv4: requests signed with sentinel key id SNTLSENTINEL00000001 re-signed as AKIAREALKEY000000001 (secret access"
                + " key: env:OSN_SECRET_KEY)", osn.get("source").asText());
        assertFalse(out().contains("sentinel-secret-access-key"), "the sentinel secret is not printed either");
    }

    @Test
    void checkShowsWhereTemporaryAwsCredentialsAreRead() throws Exception {
        Path config = dir.resolve("osn-sts.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\nallow:\n  - host: osn.cyverse.org\ncredentials:\n  - name: osn\n"
                + "    hosts: [osn.cyverse.org]\n    aws_sigv4:\n      sentinel_access_key_id: SNTLSENTINEL00000001\n"
                + "      sentinel_secret_access_key: sentinel-secret-access-key-0123\n"
                + "      access_key_id: \"file:/run/secrets/osn#access_key_id\"\n"
                + "      secret_access_key: \"file:/run/secrets/osn#secret_access_key\"\n"
                + "      session_token: \"file:/run/secrets/osn#session_token\"\n");
        assertEquals(0, run("check", "--config", config.toString(), "https://osn.cyverse.org/bucket/key"));
        JsonNode osn = new ObjectMapper().readTree(out()).get("credentials").get(0);
        assertEquals("aws_sigv4: requests signed with sentinel key id SNTLSENTINEL00000001 re-signed as the key id at"
                + " file:/run/secrets/osn#access_key_id (secret access key: file:/run/secrets/osn#secret_access_key; session token:"
                + " file:/run/secrets/osn#session_token)", osn.get("source").asText());
    }

    @Test
    void checkShowsAGitHubAppCredentialAndItsRepositoryScope() throws Exception {
        Path config = dir.resolve("github.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\ncredentials:\n  - name: github\n    sentinel: proxy-injected\n"
                + "    github_app:\n      app_id: 123456\n      private_key: \"file:/run/secrets/app.pem\"\n      installation_id: 42\n"
                + "      repositories: [cyverse/mesa-sandbox]\n      branch: agent/job-17\n");
        assertEquals(0, run("check", "--config", config.toString(), "https://x-access-token:proxy-injected@github.com/cyverse/mesa-sandbox.git"
                + "/info/refs?service=git-receive-pack"));
        JsonNode json = new ObjectMapper().readTree(out());
        JsonNode github = json.get("credentials").get(0);
        assertEquals("github", github.get("name").asText());
        assertTrue(github.get("actions").get(0).asText().contains("Basic x-access-token (git-receive-pack cyverse/mesa-sandbox)"),
                github.toString());
        assertTrue(github.get("source").asText().contains("installation 42") && github.get("source").asText().contains(
                "pushes only to refs/heads/agent/job-17"), github.toString());

        reset();
        assertEquals(Exit.DENY, run("check", "--config", config.toString(), "https://api.github.com/repos/cyverse/other"));
        JsonNode refused = new ObjectMapper().readTree(out());
        assertEquals("repository_not_allowed", refused.get("reason").asText());
    }
}
