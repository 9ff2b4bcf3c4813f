package org.cyverse.mesa.egress.github;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.github.AppJwt;
import org.cyverse.mesa.egress.injector.github.FakeGitHub;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.testkit.FakeGitLfs;
import org.cyverse.mesa.egress.testkit.GitSmartHttpServer;
import org.cyverse.mesa.egress.testkit.GitSmartHttpServer.Result;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Git LFS through the proxy with the machine's real git-lfs (Debian's 3.3), as an agent runs it
 * (issue 39: the batch API got no token, and the sentinel went to GitHub as a password): the batch
 * call gets the installation token as git's Basic {@code x-access-token}, the objects come from
 * and go to the store the batch answer names (another host, reached as the answer says, with no
 * token), and a job whose token may not write has its uploads refused with a message git-lfs
 * prints. Every host is a name only the proxy resolves (Go's clients never proxy
 * {@code localhost}); the LFS server is {@link FakeGitLfs}, since GitHub's cannot run here.
 */
class GitLfsThroughProxyTest {

    static final String TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
    static final String SENTINEL = "proxy-injected";
    static final String GIT_HOST = "github.lfs.test";
    static final String OBJECTS_HOST = "objects.lfs.test";
    static final String REPO = "acme/widgets.git";

    @TempDir
    Path dir;
    FakeGitHub github;
    GitSmartHttpServer git;
    FakeGitLfs lfs;
    ProxyFixture proxy;
    Map<String, String> env;
    Path cas;
    Path key;

    @BeforeEach
    void start() throws Exception {
        github = FakeGitHub.https(dir);
        github.account("acme");
        github.mints(4242, TOKEN);
        TestPki pki = new TestPki("lfs");
        git = GitSmartHttpServer.start(Files.createDirectories(dir.resolve("repos")), pki.serverContext(GIT_HOST), "x-access-token", TOKEN);
        git.createRepository(REPO);
        lfs = FakeGitLfs.start(pki.serverContext(GIT_HOST), pki.serverContext(OBJECTS_HOST), OBJECTS_HOST, TOKEN);
        cas = dir.resolve("upstream-cas.pem");
        Files.writeString(cas, Files.readString(github.caPem()) + "\n" + Files.readString(pki.writeCaPem(dir.resolve("lfs-ca.pem"))));
        key = dir.resolve("app.pem");
        Files.writeString(key, AppJwt.pkcs1Pem(AppJwt.newAppKey()));
        startProxy("");
    }

    void startProxy(String extra) throws Exception {
        HostResolver names = host -> host.endsWith(".lfs.test") ? List.of(InetAddress.getLoopbackAddress()) : HostResolver.SYSTEM.resolve(host);
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + cas + "\"\n  intercept: all\n"
                + "allow:\n  - host: " + GIT_HOST + "\n    ports: [" + git.port() + ", " + lfs.apiPort() + "]\n"
                + "  - host: " + OBJECTS_HOST + "\n    ports: [" + lfs.objectsPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: github\n    hosts: [" + GIT_HOST + "]\n    ports: [" + git.port() + ", " + lfs.apiPort() + "]\n"
                + "    sentinel: " + SENTINEL + "\n"
                + "    github_app:\n      app_id: 123456\n      private_key: \"file:" + key + "\"\n"
                + "      installation_id: 4242\n      repositories: [acme/widgets]\n"
                + "      branch: agent/job-17\n      api_url: \"" + github.url() + "\"\n" + extra, names);
        proxy.awaitReady(Duration.ofSeconds(15));
        Path ca = dir.resolve("proxy-ca.pem");
        Files.writeString(ca, proxy.admin("/ca.pem").body());
        Path home = Files.createDirectories(dir.resolve("home"));
        // The agent's git hands the sentinel to git and git-lfs alike, as a credential helper would.
        Files.writeString(home.resolve(".gitconfig"), "[credential]\n\thelper = \"!f() { echo username=x-access-token;"
                + " echo password=" + SENTINEL + "; }; f\"\n[user]\n\tname = agent\n\temail = agent@example.org\n");
        env = Map.of("HTTPS_PROXY", "http://127.0.0.1:" + proxy.port(), "GIT_SSL_CAINFO", ca.toString(), "HOME", home.toString(),
                "GIT_TERMINAL_PROMPT", "0", "GIT_CONFIG_GLOBAL", home.resolve(".gitconfig").toString());
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (proxy != null) {
                String everything = proxy.auditText();
                proxy.close();
                assertFalse(everything.contains(TOKEN), "the token is never in the audit log");
            }
        } finally {
            lfs.close();
            git.close();
            github.close();
        }
    }

    /** A clone whose LFS objects are fetched from the batch API on its own port, with LFS's hooks installed. */
    Path cloned() throws Exception {
        Path work = dir.resolve("work");
        Map<String, String> skip = new HashMap<>(env);
        skip.put("GIT_LFS_SKIP_SMUDGE", "1");
        Result clone = GitSmartHttpServer.git(dir, skip, "clone", "https://" + GIT_HOST + ":" + git.port() + "/" + REPO, work.toString());
        assertTrue(clone.ok(), clone.err());
        assertTrue(GitSmartHttpServer.git(work, env, "config", "lfs.url", "https://" + GIT_HOST + ":" + lfs.apiPort() + "/" + REPO
                + "/info/lfs").ok());
        assertTrue(GitSmartHttpServer.git(work, env, "lfs", "install", "--local").ok());
        return work;
    }

    static String oid(byte[] content) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    }

    @Test
    void anLfsObjectIsFetchedWithTheTokenAndItsStoreIsReachedAsTheBatchAnswerSays() throws Exception {
        byte[] model = "weights of a small model\n".repeat(200).getBytes(StandardCharsets.UTF_8);
        lfs.store(oid(model), model);
        git.commit(REPO, "main", Map.of(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n",
                "model.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:" + oid(model) + "\nsize " + model.length + "\n"),
                "Add the model");
        Path work = cloned();

        Result pulled = GitSmartHttpServer.git(work, env, "lfs", "pull");

        assertTrue(pulled.ok(), pulled.err());
        assertArrayEquals(model, Files.readAllBytes(work.resolve("model.bin")), "the object, not its pointer");
        String basic = "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + TOKEN).getBytes(StandardCharsets.UTF_8));
        FakeGitLfs.Seen batch = lfs.seen().stream().filter(s -> s.server().equals("api")).findFirst().orElseThrow();
        assertEquals(basic, batch.authorization(), "the batch call carries the installation token as git's");
        assertTrue(lfs.seen().stream().anyMatch(s -> s.server().equals("objects") && s.method().equals("GET")));
        assertTrue(lfs.seen().stream().filter(s -> s.server().equals("objects")).allMatch(s -> s.authorization() == null),
                "nothing of the token goes to the object store: " + lfs.seen());
        var record = proxy.awaitAuditRecord(r -> r.path("path").asText().endsWith("/info/lfs/objects/batch"));
        assertEquals("git-lfs", record.path("github").path("operation").asText(), record.toString());
    }

    @Test
    void anUploadGoesWhenTheJobMayPushAndIsRefusedSayingWhyWhenItMayNot() throws Exception {
        git.commit(REPO, "main", Map.of(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n"), "Track bin files with LFS");
        Path work = cloned();
        byte[] data = "results of the agent's run\n".repeat(100).getBytes(StandardCharsets.UTF_8);
        Files.write(work.resolve("results.bin"), data);
        Result added = GitSmartHttpServer.git(work, env, "add", "results.bin");
        assertTrue(added.ok(), added.err());
        Result committed = GitSmartHttpServer.git(work, env, "commit", "-qm", "results");
        assertTrue(committed.ok(), committed.err() + committed.out());

        Result pushed = GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17");

        assertTrue(pushed.ok(), pushed.err());
        assertArrayEquals(data, lfs.object(oid(data)), "the object reached the store the batch answer named");
        assertEquals(GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip(), git.refs(REPO).get("refs/heads/agent/job-17"));

        proxy.close();
        startProxy("      permissions: {contents: read}\n");
        byte[] more = "more results\n".repeat(100).getBytes(StandardCharsets.UTF_8);
        Files.write(work.resolve("more.bin"), more);
        assertTrue(GitSmartHttpServer.git(work, env, "add", "more.bin").ok());
        Result more2 = GitSmartHttpServer.git(work, env, "commit", "-qm", "more");
        assertTrue(more2.ok(), more2.err() + more2.out());
        Map<String, String> before = git.refs(REPO);

        Result refused = GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17");

        assertNotEquals(0, refused.exit());
        assertTrue(refused.err().contains("the job may not write acme/widgets"), "git-lfs prints the proxy's message: " + refused.err());
        assertEquals(null, lfs.object(oid(more)), "nothing was uploaded");
        assertEquals(before, git.refs(REPO));
    }
}
