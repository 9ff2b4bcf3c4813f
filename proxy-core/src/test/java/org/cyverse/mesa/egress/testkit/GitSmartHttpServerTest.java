package org.cyverse.mesa.egress.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.cyverse.mesa.egress.testkit.GitSmartHttpServer.Result;
import org.cyverse.mesa.egress.testkit.GitSmartHttpServer.Seen;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The git fixture is a real forge for the machine's git: clone, refused credentials, http-backend's own refusals,
 * pushes (small, and big enough to go chunked) and gzipped requests, with real git straight at it over HTTPS (no
 * proxy), trusting only its CA.
 */
class GitSmartHttpServerTest {

    static final String REPO = "acme/widgets.git";
    static final String USER = "x-access-token";
    static final String TOKEN = "ghs_fixtureToken0123456789";

    @TempDir
    Path dir;

    private GitSmartHttpServer server;
    private Map<String, String> env;

    @BeforeEach
    void start() throws Exception {
        TestPki pki = new TestPki("git");
        Path ca = pki.writeCaPem(dir.resolve("ca.pem"));
        server = GitSmartHttpServer.start(dir.resolve("repos"), pki.serverContext("localhost", "127.0.0.1"), USER, TOKEN);
        server.createRepository(REPO);
        Path home = Files.createDirectories(dir.resolve("home"));
        env = Map.of("HOME", home.toString(), "GIT_SSL_CAINFO", ca.toString(), "GIT_TERMINAL_PROMPT", "0",
                "GIT_CONFIG_NOSYSTEM", "1");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void cloneGetsTheRepositoryWithTheBasicCredential() throws Exception {
        Result clone = git(dir, "clone", url(TOKEN), "clone");

        assertEquals(0, clone.exit(), why(clone));
        Path work = dir.resolve("clone");
        assertEquals("# acme/widgets.git\n", Files.readString(work.resolve("README.md")));
        assertEquals(server.refs(REPO).get("refs/heads/main"), git(work, "rev-parse", "HEAD").out().strip());
        assertEquals("main", git(work, "branch", "--show-current").out().strip());
        assertEquals("v1", git(work, "tag", "--list").out().strip());
        // git asks without credentials first (401), then sends them: every request answered 200 carried them.
        String basic = "Basic " + Base64.getEncoder().encodeToString((USER + ":" + TOKEN).getBytes());
        assertEquals(basic, server.authorization());
        List<Seen> answered = server.seen().stream().filter(s -> s.status() == 200).toList();
        assertTrue(answered.stream().allMatch(s -> basic.equals(s.authorization())), server.seen()::toString);
        assertTrue(answered.stream().anyMatch(s -> s.method().equals("GET") && s.path().equals("/acme/widgets.git/info/refs")
                && s.query().equals("service=git-upload-pack")), server.seen()::toString);
        assertTrue(answered.stream().anyMatch(s -> s.method().equals("POST") && s.path().equals("/acme/widgets.git/git-upload-pack")),
                server.seen()::toString);
    }

    @Test
    void wrongPasswordCannotCloneAndRunsNoGit() throws Exception {
        Result clone = git(dir, "clone", url("wrong-token"), "clone");

        assertNotEquals(0, clone.exit(), why(clone));
        assertTrue(clone.err().contains("Authentication failed"), why(clone));
        assertFalse(Files.exists(dir.resolve("clone/README.md")));
        assertFalse(server.seen().isEmpty());
        assertTrue(server.seen().stream().allMatch(s -> s.status() == 401), server.seen()::toString);
        assertEquals(0, server.backendRuns(), server.seen()::toString);
    }

    @Test
    void wrongPasswordCannotPushAndLeavesTheRepositoryUnchanged() throws Exception {
        Path work = cloneAndCommit("feature.txt", "new work\n");
        Map<String, String> before = server.refs(REPO);
        int runs = server.backendRuns();
        int requests = server.seen().size();

        Result push = git(work, "push", url("wrong-token"), "HEAD:refs/heads/agent/job-1");

        assertNotEquals(0, push.exit(), why(push));
        assertTrue(push.err().contains("Authentication failed"), why(push));
        assertEquals(before, server.refs(REPO));
        assertEquals(runs, server.backendRuns());
        List<Seen> refused = server.seen().subList(requests, server.seen().size());
        assertFalse(refused.isEmpty());
        assertTrue(refused.stream().allMatch(s -> s.status() == 401), refused::toString);
    }

    @Test
    void httpBackendRefusalsKeepTheirStatus() throws Exception {
        Result missing = git(dir, "clone", url(TOKEN).replace(REPO, "acme/missing.git"), "missing");

        assertEquals(128, missing.exit(), why(missing));
        assertTrue(missing.err().contains("repository '" + server.url("acme/missing.git") + "/' not found"), why(missing));
        assertTrue(server.seen().stream().anyMatch(s -> s.path().equals("/acme/missing.git/info/refs") && s.status() == 404),
                server.seen()::toString);

        // A repository that refuses pushes: http-backend's own "Status: 403 Forbidden" reaches git.
        Path work = cloneAndCommit("feature.txt", "new work\n");
        assertEquals(0, git(dir.resolve("repos").resolve(REPO), "config", "http.receivepack", "false").exit());
        Map<String, String> before = server.refs(REPO);

        Result push = git(work, "push", "origin", "HEAD:refs/heads/agent/job-1");

        assertNotEquals(0, push.exit(), why(push));
        assertTrue(push.err().contains("403"), why(push));
        assertEquals(before, server.refs(REPO));
        assertTrue(server.seen().stream().anyMatch(s -> s.query().equals("service=git-receive-pack") && s.status() == 403),
                server.seen()::toString);
    }

    @Test
    void pushesToANewBranchAndToMain() throws Exception {
        Path work = cloneAndCommit("feature.txt", "new work\n");
        String commit = git(work, "rev-parse", "HEAD").out().strip();
        String seeded = server.refs(REPO).get("refs/heads/main");
        assertNotEquals(seeded, commit);

        Result branch = git(work, "push", "origin", "HEAD:refs/heads/agent/job-1");

        assertEquals(0, branch.exit(), why(branch));
        Map<String, String> refs = server.refs(REPO);
        assertEquals(commit, refs.get("refs/heads/agent/job-1"));
        assertEquals(seeded, refs.get("refs/heads/main"));
        Path bare = dir.resolve("repos").resolve(REPO);
        assertEquals("new work\n", git(bare, "cat-file", "blob", "agent/job-1:feature.txt").out());
        assertTrue(server.seen().stream().anyMatch(s -> s.method().equals("POST")
                && s.path().equals("/acme/widgets.git/git-receive-pack") && s.status() == 200), server.seen()::toString);

        Result main = git(work, "push", "origin", "HEAD:main");

        assertEquals(0, main.exit(), why(main));
        assertEquals(commit, server.refs(REPO).get("refs/heads/main"));
    }

    @Test
    void bigPushGoesChunkedAndArrivesWhole() throws Exception {
        Path work = cloneWork();
        byte[] random = new byte[3 * 1024 * 1024];
        new Random(42).nextBytes(random); // incompressible, so the pack stays above git's 1 MiB http.postBuffer
        Files.write(work.resolve("big.bin"), random);
        commit(work, "big.bin");
        String blob = git(work, "rev-parse", "HEAD:big.bin").out().strip();
        int requests = server.seen().size();

        // GIT_TRACE_CURL shows the headers git sent (credentials redacted), to prove the body went chunked.
        Result push = git(work, Map.of("GIT_TRACE_CURL", "1", "GIT_TRACE_CURL_NO_DATA", "1"),
                "push", "origin", "HEAD:refs/heads/agent/big");

        assertEquals(0, push.exit(), why(push));
        assertTrue(push.err().contains("Transfer-Encoding: chunked"), why(push));
        assertEquals(git(work, "rev-parse", "HEAD").out().strip(), server.refs(REPO).get("refs/heads/agent/big"));
        Path bare = dir.resolve("repos").resolve(REPO);
        assertEquals(blob, git(bare, "rev-parse", "agent/big:big.bin").out().strip());
        assertEquals(String.valueOf(random.length), git(bare, "cat-file", "-s", blob).out().strip());
        assertEquals(0, git(bare, "fsck", "--no-progress").exit());
        // The probe (a tiny POST checking the credentials) and then the chunked POST itself.
        long posts = server.seen().subList(requests, server.seen().size()).stream()
                .filter(s -> s.method().equals("POST") && s.path().endsWith("/git-receive-pack") && s.status() == 200).count();
        assertEquals(2, posts, server.seen()::toString);
    }

    @Test
    void gzippedFetchRequestIsInflated() throws Exception {
        // 40 branches at 40 different commits: a clone then wants 41 objects, a request over git's 1 KiB gzip threshold.
        Path work = cloneWork();
        for (int i = 0; i < 40; i++) {
            Files.writeString(work.resolve("n.txt"), i + "\n");
            commit(work, "n.txt");
            assertEquals(0, git(work, "branch", "topic/" + i).exit());
        }
        Result push = git(work, "push", "origin", "refs/heads/*:refs/heads/*");
        assertEquals(0, push.exit(), why(push));

        Result clone = git(dir, Map.of("GIT_TRACE_CURL", "1", "GIT_TRACE_CURL_NO_DATA", "1"), "clone", url(TOKEN), "again");

        assertEquals(0, clone.exit(), why(clone));
        assertTrue(clone.err().contains("Content-Encoding: gzip"), why(clone));
        Map<String, String> cloned = new TreeMap<>();
        git(dir.resolve("again"), "for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/origin/topic/")
                .out().lines().forEach(line -> cloned.put(line.split(" ")[0].replace("refs/remotes/origin/", "refs/heads/"), line.split(" ")[1]));
        Map<String, String> served = new TreeMap<>(server.refs(REPO));
        served.keySet().removeIf(ref -> !ref.startsWith("refs/heads/topic/"));
        assertEquals(40, served.size());
        assertEquals(served, cloned);
    }

    private String url(String password) {
        return server.url(REPO).replace("https://", "https://" + USER + ":" + password + "@");
    }

    /** A clone of the repository with the right credentials (kept in its origin URL). */
    private Path cloneWork() throws Exception {
        Result clone = git(dir, "clone", url(TOKEN), "work");
        assertEquals(0, clone.exit(), why(clone));
        return dir.resolve("work");
    }

    private Path cloneAndCommit(String file, String text) throws Exception {
        Path work = cloneWork();
        Files.writeString(work.resolve(file), text);
        commit(work, file);
        return work;
    }

    private void commit(Path work, String file) throws Exception {
        assertEquals(0, git(work, "add", file).exit());
        Result commit = git(work, "-c", "user.name=Agent", "-c", "user.email=agent@example.invalid", "commit", "-q", "-m", "Add " + file);
        assertEquals(0, commit.exit(), why(commit));
    }

    private Result git(Path in, String... args) throws Exception {
        return git(in, Map.of(), args);
    }

    private Result git(Path in, Map<String, String> extra, String... args) throws Exception {
        Map<String, String> all = new TreeMap<>(env);
        all.putAll(extra);
        return GitSmartHttpServer.git(in, all, args);
    }

    private Supplier<String> why(Result result) {
        return () -> result + "\nserver stderr:\n" + server.stderr() + "\nseen: " + server.seen();
    }
}
