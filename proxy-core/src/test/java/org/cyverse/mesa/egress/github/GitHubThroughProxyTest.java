package org.cyverse.mesa.egress.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.github.AppJwt;
import org.cyverse.mesa.egress.injector.github.FakeGitHub;
import org.cyverse.mesa.egress.testkit.GitSmartHttpServer;
import org.cyverse.mesa.egress.testkit.GitSmartHttpServer.Result;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A github_app credential end to end: the real proxy mints an installation token from WireMock
 * playing GitHub's API ({@link FakeGitHub}, fixtures from GitHub's REST docs), the machine's real
 * git clones and pushes through it to a real smart-HTTP server ({@code git http-backend} behind
 * HTTPS, {@link GitSmartHttpServer}) that accepts only {@code x-access-token:<token>}, and the JDK
 * HttpClient makes gh-shaped REST calls. The agent holds the sentinel only. Pushes to anything but
 * the job's branch fail with git printing the reason, and the server's repository is unchanged.
 */
class GitHubThroughProxyTest {

    static final String TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
    static final String SENTINEL = "proxy-injected";
    static final long INSTALLATION = 4242;
    static final String REPO = "acme/widgets.git";

    @TempDir
    Path dir;
    FakeGitHub github;
    GitSmartHttpServer git;
    ProxyFixture proxy;
    KeyPair appKey;
    Map<String, String> env;

    @BeforeEach
    void start() throws Exception {
        github = FakeGitHub.https(dir);
        github.account("acme");
        github.mints(INSTALLATION, TOKEN);
        github.revokes();
        github.repository("acme", "widgets", TOKEN);
        TestPki pki = new TestPki("git");
        git = GitSmartHttpServer.start(Files.createDirectories(dir.resolve("repos")), pki.serverContext("localhost", "127.0.0.1"),
                "x-access-token", TOKEN);
        git.createRepository(REPO);
        git.createRepository("acme/secret-plans.git");
        github.compares("acme", "widgets", TOKEN, (base, head) -> {
            GitSmartHttpServer.FakeComparison c = git.compare(REPO, base, head);
            return c == null ? null : new FakeGitHub.Comparison(c.status(), c.aheadBy(), c.behindBy(), c.mergeBase());
        });
        Path cas = dir.resolve("upstream-cas.pem");
        Files.writeString(cas, Files.readString(github.caPem()) + "\n" + Files.readString(pki.writeCaPem(dir.resolve("git-ca.pem"))));
        appKey = AppJwt.newAppKey();
        Path key = dir.resolve("app.pem");
        Files.writeString(key, AppJwt.pkcs1Pem(appKey));
        this.cas = cas;
        this.key = key;
        startProxy("");
    }

    Path cas;
    Path key;

    /** Lines added to the tls block; the HTTP/2 variant of this class turns {@code http2} on. */
    String tlsExtra() {
        return "";
    }

    /** Starts the proxy; {@code extra} goes at the end of the github_app block. */
    void startProxy(String extra) throws Exception {
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + cas + "\"\n  intercept: all\n" + tlsExtra()
                + "allow:\n  - host: localhost\n    ports: [" + github.port() + ", " + git.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: github\n    hosts: [localhost]\n    ports: [" + github.port() + ", " + git.port() + "]\n"
                + "    sentinel: " + SENTINEL + "\n"
                + "    github_app:\n      app_id: 123456\n      private_key: \"file:" + key + "\"\n"
                + "      installation_id: " + INSTALLATION + "\n      repositories: [Acme/Widgets]\n"
                + "      branch: agent/job-17\n      api_url: \"" + github.url() + "\"\n" + extra);
        proxy.awaitReady(Duration.ofSeconds(15));
        Path ca = dir.resolve("proxy-ca.pem");
        Files.writeString(ca, proxy.admin("/ca.pem").body());
        Path home = Files.createDirectories(dir.resolve("home"));
        env = Map.of("HTTPS_PROXY", "http://127.0.0.1:" + proxy.port(), "GIT_SSL_CAINFO", ca.toString(), "HOME", home.toString());
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
            git.close();
            github.close();
        }
    }

    /** The URL the agent uses: the sentinel as git's password, as a credential helper would give it. */
    String url(String repo) {
        return "https://x-access-token:" + SENTINEL + "@localhost:" + git.port() + "/" + repo;
    }

    Path cloned() throws Exception {
        Path work = dir.resolve("work");
        Result clone = GitSmartHttpServer.git(dir, env, "clone", url(REPO), work.toString());
        assertTrue(clone.ok(), clone.err());
        return work;
    }

    Result commitAndPush(Path work, String file, String... refspecs) throws Exception {
        Files.writeString(work.resolve(file), "work of the agent\n");
        assertTrue(GitSmartHttpServer.git(work, env, "add", file).ok());
        assertTrue(GitSmartHttpServer.git(work, env, "-c", "user.name=agent", "-c", "user.email=agent@example.org", "commit", "-qm",
                "agent's change").ok());
        String[] args = new String[refspecs.length + 2];
        args[0] = "push";
        args[1] = "origin";
        System.arraycopy(refspecs, 0, args, 2, refspecs.length);
        return GitSmartHttpServer.git(work, env, args);
    }

    @Test
    void cloneAndPushToTheJobBranchWorkWithTheMintedTokenAndTheAppJwtIsGitHubs() throws Exception {
        Path work = cloned();

        assertTrue(Files.readString(work.resolve("README.md")).contains("acme/widgets"));
        Result push = commitAndPush(work, "fix.txt", "HEAD:refs/heads/agent/job-17");

        assertTrue(push.ok(), push.err());
        String head = GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip();
        assertEquals(head, git.refs(REPO).get("refs/heads/agent/job-17"), "the server has the agent's commit on the job branch");
        String basic = "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + TOKEN).getBytes(StandardCharsets.UTF_8));
        for (GitSmartHttpServer.Seen seen : git.seen()) {
            assertEquals(basic, seen.authorization(), "every request reached the server with the token, never the sentinel: " + seen);
        }
        AppJwt.Claims claims = AppJwt.verify(github.requests("/app/installations/").get(0).getHeader("Authorization"),
                (RSAPublicKey) appKey.getPublic());
        assertEquals("123456", claims.iss());
        JsonNode asked = github.bodies("/app/installations/").get(0);
        assertEquals("[\"Widgets\"]", asked.path("repositories").toString());
        JsonNode audit = proxy.awaitAuditRecord(r -> r.path("path").asText().endsWith("/git-receive-pack")
                && r.path("method").asText().equals("POST") && r.path("github").path("refs").size() > 0);
        assertEquals("allow", audit.path("decision").asText());
        assertEquals("github", audit.path("credential").asText());
        assertEquals("acme/widgets", audit.path("github").path("repository").asText());
        assertEquals("[\"refs/heads/agent/job-17\"]", audit.path("github").path("refs").toString());
    }

    @Test
    void pushesToMainATagADeletionOrMainWithTheJobBranchFailWithTheReasonAndChangeNothing() throws Exception {
        Path work = cloned();
        Result first = commitAndPush(work, "a.txt", "HEAD:refs/heads/agent/job-17");
        assertTrue(first.ok(), first.err());
        Map<String, String> before = git.refs(REPO);
        int receivePacks = receivePackPosts();
        String[][] pushes = {{"b.txt", "HEAD:refs/heads/main"}, {"c.txt", "HEAD:refs/tags/v2"}, {null, ":refs/heads/agent/job-17"},
            {"d.txt", "HEAD:refs/heads/agent/job-17", "HEAD:refs/heads/main"}};
        for (String[] push : pushes) {
            List<String> refspecs = java.util.Arrays.asList(push).subList(1, push.length);
            Result result = push[0] == null ? GitSmartHttpServer.git(work, env, "push", "origin", refspecs.get(0))
                    : commitAndPush(work, push[0], refspecs.toArray(String[]::new));

            assertNotEquals(0, result.exit(), "git push " + refspecs + " must fail: " + result.err());
            assertTrue(result.err().contains("refused by egress policy"), "git prints the reason: " + result.err());
            assertTrue(result.err().contains("remote: mesa-egress:"), "and the proxy's message: " + result.err());
            assertEquals(before, git.refs(REPO), "the server's repository is unchanged after git push " + refspecs);
        }
        assertEquals(receivePacks, receivePackPosts(), "no refused push reached the server");
        JsonNode mixed = proxy.awaitAuditRecord(r -> r.path("github").path("refs").size() == 2);
        assertEquals("deny", mixed.path("decision").asText());
        assertEquals("ref_not_allowed", mixed.path("reason").asText());
        assertEquals("[\"refs/heads/agent/job-17\",\"refs/heads/main\"]", mixed.path("github").path("refs").toString());
    }

    @Test
    void aPushLargerThanGitsPostBufferGoesChunkedToTheJobBranchAndIsRefusedWholeToMain() throws Exception {
        Path work = cloned();
        byte[] noise = new byte[3 << 20];
        new java.util.Random(17).nextBytes(noise);
        Files.write(work.resolve("big.bin"), noise); // over http.postBuffer (1 MiB): git probes with "0000", then sends chunked
        assertTrue(GitSmartHttpServer.git(work, env, "add", "big.bin").ok());
        Map<String, String> before = git.refs(REPO);
        Result toMain = commitAndPush(work, "big.txt", "HEAD:refs/heads/main");

        assertNotEquals(0, toMain.exit());
        assertTrue(toMain.err().contains("[remote rejected] HEAD -> main (refused by egress policy"), "git: " + toMain.err());
        assertEquals(before, git.refs(REPO), "the server's repository is unchanged");

        Result toJob = GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17");
        assertTrue(toJob.ok(), toJob.err());
        assertEquals(GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip(), git.refs(REPO).get("refs/heads/agent/job-17"));

        // An update of the branch with a pack past the hold bound: read for fast-forwards while it streams upstream.
        new java.util.Random(18).nextBytes(noise);
        Files.write(work.resolve("big2.bin"), noise);
        assertTrue(GitSmartHttpServer.git(work, env, "add", "big2.bin").ok());
        Result ff = commitAndPush(work, "big2.txt", "HEAD:refs/heads/agent/job-17");
        assertTrue(ff.ok(), "a 3 MiB fast-forward goes: " + ff.err());
        String tip = GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip();
        assertEquals(tip, git.refs(REPO).get("refs/heads/agent/job-17"));

        // A 3 MiB rewrite: refused at the pack's end, after most of it went upstream; that connection is reset, the branch stays.
        assertTrue(GitSmartHttpServer.git(work, env, "reset", "-q", "HEAD~1").ok());
        new java.util.Random(19).nextBytes(noise);
        Files.write(work.resolve("big3.bin"), noise);
        assertTrue(GitSmartHttpServer.git(work, env, "add", "big3.bin").ok());
        assertTrue(GitSmartHttpServer.git(work, env, "-c", "user.name=agent", "-c", "user.email=agent@example.org", "commit", "-qm",
                "rewrite").ok());
        Map<String, String> beforeRewrite = git.refs(REPO);
        Result forced = GitSmartHttpServer.git(work, env, "push", "--force", "origin", "HEAD:refs/heads/agent/job-17");
        assertNotEquals(0, forced.exit());
        assertTrue(forced.err().contains("is not a fast-forward"), "git: " + forced.err());
        assertEquals(beforeRewrite, git.refs(REPO), "the job branch was not rewritten");
        assertEquals(tip, git.refs(REPO).get("refs/heads/agent/job-17"));
    }

    @Test
    void aForcePushToTheJobBranchIsRefusedUnlessForcePushIsOn() throws Exception {
        Path work = cloned();
        Result first = commitAndPush(work, "a.txt", "HEAD:refs/heads/agent/job-17");
        assertTrue(first.ok(), first.err());
        Result ff = commitAndPush(work, "b.txt", "HEAD:refs/heads/agent/job-17");
        assertTrue(ff.ok(), "a fast-forward of the job branch goes: " + ff.err());
        Map<String, String> before = git.refs(REPO);
        assertTrue(GitSmartHttpServer.git(work, env, "-c", "user.name=agent", "-c", "user.email=agent@example.org", "commit", "-q",
                "--amend", "-m", "rewritten").ok());

        Result forced = GitSmartHttpServer.git(work, env, "push", "--force", "origin", "HEAD:refs/heads/agent/job-17");

        assertNotEquals(0, forced.exit());
        assertTrue(forced.err().contains("[remote rejected] HEAD -> agent/job-17 (refused by egress policy: is not a fast-forward"),
                forced.err());
        assertEquals(before, git.refs(REPO), "the job branch was not rewritten");

        proxy.close();
        startProxy("      force_push: true\n");
        Result allowed = GitSmartHttpServer.git(work, env, "push", "--force", "origin", "HEAD:refs/heads/agent/job-17");
        assertTrue(allowed.ok(), "with force_push: true the job branch may be rewritten: " + allowed.err());
        assertEquals(GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip(), git.refs(REPO).get("refs/heads/agent/job-17"));
    }

    /** The agent's day (issue 39): the job branch made at main's tip, main moved on, merged, committed, pushed. */
    @Test
    void aPushAfterMergingAMovedMainIsAFastForwardAsGitHubSays() throws Exception {
        Path work = cloned();
        Result created = GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17");
        assertTrue(created.ok(), created.err());
        String moved = git.advance(REPO, "main", "teammate.txt");
        assertTrue(GitSmartHttpServer.git(work, env, "fetch", "origin").ok());
        assertTrue(GitSmartHttpServer.git(work, env, "merge", "--ff-only", "origin/main").ok());

        Result pushed = commitAndPush(work, "c.txt", "HEAD:refs/heads/agent/job-17");

        assertTrue(pushed.ok(), "an ordinary fast-forward goes: " + pushed.err());
        String head = GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip();
        assertEquals(head, git.refs(REPO).get("refs/heads/agent/job-17"));
        assertEquals(moved, git.refs(REPO).get("refs/heads/main"), "main is the teammate's");
        assertEquals(1, github.requests("/repos/acme/widgets/compare/").size(), "GitHub was asked once: the pack stops at main's tip");
        assertTrue(github.requests("/repos/acme/widgets/compare/").get(0).getUrl().contains("..." + moved), "asked about " + moved);
    }

    /** Past the hold bound the pack streams upstream; its last bytes wait for GitHub's answer, then go. */
    @Test
    void aLargePushAfterMergingStreamsAndItsLastBytesWaitForGitHub() throws Exception {
        Path work = cloned();
        assertTrue(GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17").ok());
        git.advance(REPO, "main", "teammate.txt");
        assertTrue(GitSmartHttpServer.git(work, env, "fetch", "origin").ok());
        assertTrue(GitSmartHttpServer.git(work, env, "merge", "--ff-only", "origin/main").ok());
        byte[] noise = new byte[3 << 20];
        new java.util.Random(23).nextBytes(noise);
        Files.write(work.resolve("big.bin"), noise);
        assertTrue(GitSmartHttpServer.git(work, env, "add", "big.bin").ok());

        Result pushed = commitAndPush(work, "c.txt", "HEAD:refs/heads/agent/job-17");

        assertTrue(pushed.ok(), "a 3 MiB fast-forward onto a moved main goes: " + pushed.err());
        assertEquals(GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip(), git.refs(REPO).get("refs/heads/agent/job-17"));
        assertEquals(1, github.requests("/repos/acme/widgets/compare/").size());
    }

    /** {@code git pull --rebase} onto a moved main, then several commits: each push goes. */
    @Test
    void aPushOfSeveralCommitsAfterRebasingOntoAMovedMainGoes() throws Exception {
        Path work = cloned();
        assertTrue(GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17").ok());
        Files.writeString(work.resolve("local.txt"), "made before main moved\n");
        assertTrue(GitSmartHttpServer.git(work, env, "add", "local.txt").ok());
        assertTrue(GitSmartHttpServer.git(work, env, "-c", "user.name=agent", "-c", "user.email=agent@example.org", "commit", "-qm",
                "local").ok());
        git.advance(REPO, "main", "teammate-1.txt");
        git.advance(REPO, "main", "teammate-2.txt");
        Result rebased = GitSmartHttpServer.git(work, env, "-c", "user.name=agent", "-c", "user.email=agent@example.org", "pull",
                "--rebase", "origin", "main");
        assertTrue(rebased.ok(), rebased.err());
        for (String file : List.of("d.txt", "e.txt")) {
            Files.writeString(work.resolve(file), file + "\n");
            assertTrue(GitSmartHttpServer.git(work, env, "add", file).ok());
            assertTrue(GitSmartHttpServer.git(work, env, "-c", "user.name=agent", "-c", "user.email=agent@example.org", "commit", "-qm",
                    file).ok());
        }

        Result pushed = GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17");

        assertTrue(pushed.ok(), pushed.err());
        assertEquals(GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip(), git.refs(REPO).get("refs/heads/agent/job-17"));
    }

    /** No proof is no push: GitHub's compare API failing refuses the push, saying what could not be proved. */
    @Test
    void whenGitHubCannotSayThePushIsRefusedSayingWhatWasNotProved() throws Exception {
        github.compares("acme", "widgets", TOKEN, (base, head) -> {
            throw new IOException("GitHub is having a bad day");
        });
        Path work = cloned();
        assertTrue(GitSmartHttpServer.git(work, env, "push", "origin", "HEAD:refs/heads/agent/job-17").ok());
        git.advance(REPO, "main", "teammate.txt");
        assertTrue(GitSmartHttpServer.git(work, env, "fetch", "origin").ok());
        assertTrue(GitSmartHttpServer.git(work, env, "merge", "--ff-only", "origin/main").ok());
        Map<String, String> before = git.refs(REPO);

        Result pushed = commitAndPush(work, "c.txt", "HEAD:refs/heads/agent/job-17");

        assertNotEquals(0, pushed.exit());
        assertTrue(pushed.err().contains("could not be proved a fast-forward: GitHub's compare API answered 500"), pushed.err());
        assertEquals(before, git.refs(REPO), "the job branch did not move");
    }

    /**
     * The pack of a force push sent whole, with the end of the chunked body held back: the
     * upstream must not get the pack's last bytes (it would apply a whole pack without waiting
     * for the body's end), so the branch stays while the client waits, and the refusal comes
     * once the body ends.
     */
    @Test
    void aForcePushWhoseBodyEndIsHeldBackNeverCompletesUpstream() throws Exception {
        Path work = cloned();
        assertTrue(commitAndPush(work, "a.txt", "HEAD:refs/heads/agent/job-17").ok());
        String old = git.refs(REPO).get("refs/heads/agent/job-17");
        byte[] noise = new byte[3 << 20]; // past limits.scan_hold_bytes: the head and most of the pack leave before its end
        new java.util.Random(23).nextBytes(noise);
        Files.write(work.resolve("big.bin"), noise);
        assertTrue(GitSmartHttpServer.git(work, env, "add", "big.bin").ok());
        assertTrue(GitSmartHttpServer.git(work, env, "-c", "user.name=agent", "-c", "user.email=agent@example.org", "commit", "-q",
                "--amend", "-m", "rewritten").ok());
        String rewritten = GitSmartHttpServer.git(work, env, "rev-parse", "HEAD").out().strip();
        Process packing = new ProcessBuilder("git", "-C", work.toString(), "pack-objects", "--stdout", "--revs", "--thin").start();
        packing.getOutputStream().write((rewritten + "\n^" + git.refs(REPO).get("refs/heads/main") + "\n").getBytes(StandardCharsets.US_ASCII));
        packing.getOutputStream().close();
        byte[] pack = packing.getInputStream().readAllBytes();
        assertEquals(0, packing.waitFor());
        String command = old + " " + rewritten + " refs/heads/agent/job-17\0report-status\n";
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        body.writeBytes((String.format("%04x", command.length() + 4) + command + "0000").getBytes(StandardCharsets.ISO_8859_1));
        body.writeBytes(pack);

        try (java.net.Socket raw = new java.net.Socket("127.0.0.1", proxy.port())) {
            raw.setSoTimeout(20_000);
            String authority = "localhost:" + git.port();
            raw.getOutputStream().write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            java.io.InputStream in = raw.getInputStream();
            String established = readHead(in);
            assertTrue(established.startsWith("HTTP/1.1 200"), established);
            javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) TestPki.trusting(proxy.server().ca().certificate()).getSocketFactory()
                    .createSocket(raw, "localhost", git.port(), true);
            tls.startHandshake();
            java.io.OutputStream out = tls.getOutputStream();
            out.write(("POST /acme/widgets.git/git-receive-pack HTTP/1.1\r\nHost: " + authority + "\r\nTransfer-Encoding: chunked\r\n"
                    + "Content-Type: application/x-git-receive-pack-request\r\nAccept: application/x-git-receive-pack-result\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] whole = body.toByteArray();
            out.write((Integer.toHexString(whole.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(whole);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();

            Thread.sleep(2000); // the whole pack is with the proxy; the body's end is not
            assertEquals(old, git.refs(REPO).get("refs/heads/agent/job-17"), "the upstream never got the whole pack");

            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String head = readHead(tls.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 200") && head.toLowerCase(java.util.Locale.ROOT).contains("x-mesa-egress-reason: ref_not_allowed"),
                    head);
            String report = new String(tls.getInputStream().readNBytes(200), StandardCharsets.ISO_8859_1);
            assertTrue(report.contains("ng refs/heads/agent/job-17 refused by egress policy: is not a fast-forward"), report);
        }
        assertEquals(old, git.refs(REPO).get("refs/heads/agent/job-17"), "the job branch was not rewritten");
    }

    private static String readHead(java.io.InputStream in) throws java.io.IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    @Test
    void anotherRepositoryIsRefusedAndGitSaysWhy() throws Exception {
        Result clone = GitSmartHttpServer.git(dir, env, "clone", url("acme/secret-plans.git"), dir.resolve("other").toString());

        assertNotEquals(0, clone.exit());
        assertTrue(clone.err().contains("remote: mesa-egress: repository_not_allowed"), clone.err());
        assertTrue(git.seen().stream().noneMatch(s -> s.path().contains("secret-plans")), "the server never saw it");
        JsonNode audit = proxy.awaitAuditRecord(r -> "repository_not_allowed".equals(r.path("reason").asText()));
        assertEquals("acme/secret-plans", audit.path("github").path("repository").asText());
    }

    @Test
    void restCallsShapedAsGhsGetTheTokenForTheJobsRepositoryOnly() throws Exception {
        HttpRequest allowed = HttpRequest.newBuilder(URI.create(github.url() + "/repos/acme/widgets"))
                .header("Authorization", "token " + SENTINEL).header("Accept", "application/vnd.github+json").build();
        HttpResponse<String> ok = proxy.interceptingClient().send(allowed, HttpResponse.BodyHandlers.ofString());

        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals("Bearer " + TOKEN, github.requests("/repos/acme/widgets").get(0).getHeader("Authorization"));
        assertFalse(ok.body().contains(TOKEN));

        HttpRequest other = HttpRequest.newBuilder(URI.create(github.url() + "/repos/acme/secret-plans"))
                .header("Authorization", "token " + SENTINEL).build();
        HttpResponse<String> refused = proxy.interceptingClient().send(other, HttpResponse.BodyHandlers.ofString());
        assertEquals(403, refused.statusCode());
        JsonNode body = new ObjectMapper().readTree(refused.body());
        assertEquals("repository_not_allowed", body.path("reason").asText());
        assertTrue(body.path("message").asText().contains("acme/secret-plans"), "gh prints message: " + body);
        assertTrue(github.requests("/repos/acme/secret-plans").isEmpty());

        HttpRequest merge = HttpRequest.newBuilder(URI.create(github.url() + "/repos/acme/widgets/pulls/1/merge"))
                .header("Authorization", "token " + SENTINEL).PUT(HttpRequest.BodyPublishers.ofString("{}")).build();
        HttpResponse<String> notMerged = proxy.interceptingClient().send(merge, HttpResponse.BodyHandlers.ofString());
        assertEquals(403, notMerged.statusCode());
        assertEquals("ref_not_allowed", notMerged.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
    }

    /**
     * The writes the GitHub MCP server's tools make (issue 39: every one was refused, the job's
     * branch too): create_branch, push_files' ref update, create_or_update_file, delete_file,
     * merging into the job's branch; the same naming main, a forced update, or none, refused with
     * a message the tool shows, and nothing of those reaches GitHub.
     */
    @Test
    void restWritesThatNameTheJobsBranchInTheirBodyGoAndOthersAreRefused() throws Exception {
        github.writes("acme", "widgets", TOKEN);
        String sha = "aa218f56b14c9653891f9e74264a383fa43fefbd";
        String content = "{\"message\":\"notes\",\"content\":\"aGVsbG8K\",";
        Object[][] allowed = {
            {"POST", "/git/refs", "{\"ref\":\"refs/heads/agent/job-17\",\"sha\":\"" + sha + "\"}", 201},
            {"PATCH", "/git/refs/heads/agent/job-17", "{\"sha\":\"" + sha + "\",\"force\":false}", 200},
            {"PATCH", "/git/refs/heads/agent/job-17", "{\"sha\":\"" + sha + "\"}", 200},
            // push_files of the GitHub MCP server: force goes as false (GitHub then refuses what is not a fast-forward).
            {"PATCH", "/git/refs/heads/agent/job-17", "{\"sha\":\"" + sha + "\",\"force\":true}", 200},
            {"PUT", "/contents/notes/hello.txt", content + "\"branch\":\"agent/job-17\"}", 201},
            {"DELETE", "/contents/notes/hello.txt", "{\"message\":\"rm\",\"sha\":\"" + sha + "\",\"branch\":\"agent/job-17\"}", 200},
        };
        for (Object[] c : allowed) {
            HttpResponse<String> answer = rest((String) c[0], (String) c[1], (String) c[2]);
            assertEquals(c[3], answer.statusCode(), c[0] + " " + c[1] + ": " + answer.body());
            var reached = github.requests("/repos/acme/widgets" + c[1]);
            assertEquals("Bearer " + TOKEN, reached.get(reached.size() - 1).getHeader("Authorization"));
            assertEquals(((String) c[2]).replace("\"force\":true", "\"force\":false"), reached.get(reached.size() - 1).getBodyAsString(),
                    "the body goes as it was sent, a force made false");
        }
        HttpResponse<String> merged = rest("POST", "/merges", "{\"base\":\"agent/job-17\",\"head\":\"main\"}");
        assertEquals(1, github.requests("/repos/acme/widgets/merges").size(), "a merge into the job's branch reaches GitHub: " + merged.body());

        Object[][] refused = {
            {"POST", "/git/refs", "{\"ref\":\"refs/heads/main-2\",\"sha\":\"" + sha + "\"}", "only refs/heads/agent/job-17 may"},
            {"POST", "/git/refs", "{\"ref\":\"refs/tags/v2\",\"sha\":\"" + sha + "\"}", "only refs/heads/agent/job-17 may be created"},
            {"PATCH", "/git/refs/heads/agent/job-17", "{\"sha\":\"" + sha + "\",\"force\":\"yes\"}", "force is not a boolean"},
            {"PUT", "/contents/notes/hello.txt", content + "\"branch\":\"main\"}", "only refs/heads/agent/job-17 may be pushed"},
            {"PUT", "/contents/notes/hello.txt", content.substring(0, content.length() - 1) + "}", "without branch it writes the"
                    + " repository's default branch"},
            {"PUT", "/contents/notes/hello.txt", content + "\"branch\":\"agent/job-17\",\"branch\":\"main\"}", "gives branch twice"},
            {"POST", "/merges", "{\"base\":\"main\",\"head\":\"agent/job-17\"}", "only refs/heads/agent/job-17 may be pushed"},
            {"PUT", "/contents/notes/hello.txt", "", "names its branch in its body, and this call has none"},
        };
        for (Object[] c : refused) {
            int before = github.requests("/repos/acme/widgets" + c[1]).size();
            HttpResponse<String> answer = rest((String) c[0], (String) c[1], (String) c[2]);
            JsonNode body = new ObjectMapper().readTree(answer.body());
            assertEquals(answer.statusCode() == 400 ? "bad_request" : "ref_not_allowed", body.path("reason").asText(), answer.body());
            assertTrue(body.path("message").asText().contains((String) c[3]), "the tool shows message: " + body);
            assertEquals(before, github.requests("/repos/acme/widgets" + c[1]).size(), "nothing of it reached GitHub: " + c[2]);
        }
        JsonNode record = proxy.awaitAuditRecord(r -> r.path("path").asText().endsWith("/contents/notes/hello.txt")
                && r.path("decision").asText().equals("allow") && r.path("method").asText().equals("PUT"));
        assertEquals("refs/heads/agent/job-17", record.path("github").path("refs").get(0).asText(), record.toString());
    }

    /** Issue 39: GraphQL mutations moved refs past the rule; now each is judged before anything of the request leaves. */
    @Test
    void graphqlMutationsAreJudgedByTheBranchRuleAndQueriesGo() throws Exception {
        github.graphql(TOKEN);
        String commit = "mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }";
        String[][] allowed = {
            {"query { repository(owner: \"acme\", name: \"widgets\") { id } }", "{}"},
            {commit, "{\"input\":{\"branch\":{\"repositoryNameWithOwner\":\"acme/widgets\",\"branchName\":\"agent/job-17\"}}}"},
            {"mutation($i: CreatePullRequestInput!) { createPullRequest(input: $i) { pullRequest { url } } }",
                "{\"i\":{\"repositoryId\":\"R_1\",\"baseRefName\":\"main\",\"headRefName\":\"agent/job-17\",\"title\":\"t\"}}"},
        };
        for (String[] c : allowed) {
            int before = github.requests("/graphql").size();
            HttpResponse<String> answer = graphql(c[0], c[1]);
            assertEquals(200, answer.statusCode(), answer.body());
            assertEquals(before + 1, github.requests("/graphql").size());
            assertEquals("Bearer " + TOKEN, github.requests("/graphql").get(before).getHeader("Authorization"));
        }
        String[][] refused = {
            {commit, "{\"input\":{\"branch\":{\"repositoryNameWithOwner\":\"acme/widgets\",\"branchName\":\"main\"}}}",
                "createCommitOnBranch on refs/heads/main"},
            {"mutation { updateRef(input: {refId: \"REF_1\", oid: \"aa\", force: true}) { ref { name } } }", "{}", "updateRef"},
            {"mutation { mergePullRequest(input: {pullRequestId: \"PR_1\"}) { pullRequest { merged } } }", "{}", "mergePullRequest"},
        };
        for (String[] c : refused) {
            int before = github.requests("/graphql").size();
            HttpResponse<String> answer = graphql(c[0], c[1]);
            assertEquals(403, answer.statusCode(), answer.body());
            JsonNode body = new ObjectMapper().readTree(answer.body());
            assertEquals("graphql_not_allowed", body.path("reason").asText());
            assertTrue(body.path("message").asText().contains(c[2]), "gh prints message: " + body);
            assertEquals(before, github.requests("/graphql").size(), "nothing of it reached GitHub");
        }
    }

    HttpResponse<String> graphql(String query, String variables) throws Exception {
        ObjectNode body = new ObjectMapper().createObjectNode().put("query", query);
        body.set("variables", new ObjectMapper().readTree(variables));
        HttpRequest request = HttpRequest.newBuilder(URI.create(github.url() + "/graphql")).header("Authorization", "bearer " + SENTINEL)
                .header("Content-Type", "application/json; charset=utf-8").POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        return proxy.interceptingClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> rest(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(github.url() + "/repos/acme/widgets" + path))
                .header("Authorization", "Bearer " + SENTINEL).header("Accept", "application/vnd.github+json")
                .header("Content-Type", "application/json")
                .method(method, body.isEmpty() ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
        return proxy.interceptingClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * {@code public_read} (issue 39: a job could fetch no dependency from GitHub but its own
     * repositories): another repository is fetched anonymous, the agent's sentinel taken off
     * too, so GitHub answers for public ones only; it is never pushed to.
     */
    @Test
    void withPublicReadOtherRepositoriesAreFetchedAnonymouslyAndNeverPushed() throws Exception {
        git.createRepository("octo/public-lib.git");
        git.makePublic("octo/public-lib.git");
        Path before = dir.resolve("lib-refused");
        Result refused = GitSmartHttpServer.git(dir, env, "clone", url("octo/public-lib.git"), before.toString());
        assertNotEquals(0, refused.exit(), "without public_read another repository is refused");

        proxy.close();
        startProxy("      public_read: true\n");
        Path lib = dir.resolve("lib");
        Result clone = GitSmartHttpServer.git(dir, env, "clone", url("octo/public-lib.git"), lib.toString());

        assertTrue(clone.ok(), clone.err());
        assertTrue(Files.readString(lib.resolve("README.md")).contains("octo/public-lib.git"));
        var toLib = git.seen().stream().filter(s -> s.path().startsWith("/octo/public-lib.git/")).toList();
        assertFalse(toLib.isEmpty());
        assertTrue(toLib.stream().allMatch(s -> s.authorization() == null), "anonymous, neither token nor sentinel: " + toLib);

        Map<String, String> refs = git.refs("octo/public-lib.git");
        Result pushed = commitAndPush(lib, "x.txt", "HEAD:refs/heads/agent/job-17");
        assertNotEquals(0, pushed.exit());
        assertTrue(pushed.err().contains("public_read lets only fetches and reads"), pushed.err());
        assertEquals(refs, git.refs("octo/public-lib.git"));

        Result secret = GitSmartHttpServer.git(dir, Map.of("HTTPS_PROXY", env.get("HTTPS_PROXY"), "GIT_SSL_CAINFO",
                env.get("GIT_SSL_CAINFO"), "HOME", env.get("HOME"), "GIT_TERMINAL_PROMPT", "0"), "clone",
                url("acme/secret-plans.git"), dir.resolve("secret").toString());
        assertNotEquals(0, secret.exit(), "a private repository answers an anonymous fetch with 401");
        assertTrue(git.seen().stream().filter(s -> s.path().startsWith("/acme/secret-plans.git/")).allMatch(s -> s.authorization() == null),
                "the token never goes to a repository that is not the job's");
    }

    @Test
    void stoppingRevokesTheToken() throws Exception {
        assertTrue(proxy.server().stop(Duration.ofSeconds(3)));
        var revoked = github.requests("/installation/token");
        assertEquals(1, revoked.size(), "one DELETE /installation/token on stop");
        assertEquals("Bearer " + TOKEN, revoked.get(0).getHeader("Authorization"));
    }

    private int receivePackPosts() {
        return (int) git.seen().stream().filter(s -> s.method().equals("POST") && s.path().endsWith("git-receive-pack")).count();
    }
}
