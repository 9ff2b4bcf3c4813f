package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.injector.AnswerStyle;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretValues;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** What the github_app step does to each kind of request to api.github.com and github.com, one row per case. */
class GitHubStepTest {

    static final String TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
    static final String SENTINEL = "proxy-injected";

    static CredentialSpec spec(boolean graphql) {
        GitHubAppSpec app = new GitHubAppSpec(URI.create("https://api.github.com"), "123456", SecretRef.parse("file:/k.pem"),
                42L, List.of("Acme/Widgets", "acme/gadgets"), Map.of("contents", "write"), new BranchRule(List.of("agent/job-17")), graphql);
        return new CredentialSpec("github", List.of(HostPattern.parse("api.github.com"), HostPattern.parse("github.com")), Set.of(443),
                Set.of(), List.of(), SENTINEL, null, "Bearer {secret}", null, false, false, app);
    }

    static SecretValues store(String token) {
        return new SecretValues() {
            @Override
            public Optional<Secret> current(String credential) {
                return Optional.ofNullable(token).map(Secret::of);
            }

            @Override
            public List<Secret> held(String credential) {
                return token == null ? List.of() : List.of(Secret.of(token));
            }

            @Override
            public long generation() {
                return 1;
            }
        };
    }

    static Injection apply(String host, String method, String pathAndQuery, String token, boolean graphql) throws Exception {
        return new GitHubStep(List.of(spec(graphql)), store(token)).apply(new OutgoingRequest(true, Destination.parse(host, 443), method,
                pathAndQuery, List.of(Map.entry("Authorization", "token " + SENTINEL), Map.entry("User-Agent", "gh/2.62"))));
    }

    static String authorization(Injection injection) {
        return injection.headers().stream().filter(h -> h.getKey().equalsIgnoreCase("authorization")).map(Map.Entry::getValue)
                .reduce((a, b) -> a + " | " + b).orElse(null);
    }

    @ParameterizedTest(name = "{0} {1}{2}")
    @CsvSource(delimiter = '|', value = {
        // REST: the job's repositories (in any case), the repository-free reads, the rest refused.
        "api.github.com | GET    | /repos/acme/widgets                               | INJECTED               | rest             | acme/widgets",
        "api.github.com | GET    | /repos/ACME/WIDGETS/pulls?state=open              | INJECTED               | rest             | ACME/WIDGETS",
        "api.github.com | POST   | /repos/acme/widgets/pulls                         | INJECTED               | rest             | acme/widgets",
        "api.github.com | POST   | /repos/acme/gadgets/issues/3/comments             | INJECTED               | rest             | acme/gadgets",
        "api.github.com | GET    | /repos/acme/secret-plans                          | REPOSITORY_NOT_ALLOWED | rest             | acme/secret-plans",
        "api.github.com | GET    | /repos/evil/widgets/contents/x                    | REPOSITORY_NOT_ALLOWED | rest             | evil/widgets",
        "api.github.com | GET    | /repos/acme/widgets%2F..%2Fsecret-plans           | REPOSITORY_NOT_ALLOWED | rest             | ",
        "api.github.com | GET    | /repos/acme/./widgets                             | REPOSITORY_NOT_ALLOWED | rest             | ",
        "api.github.com | GET    | /repos/acme/%77idgets                             | INJECTED               | rest             | acme/widgets",
        "api.github.com | GET    | /rate_limit                                       | INJECTED               | rest             | ",
        "api.github.com | GET    | /user                                             | INJECTED               | rest             | ",
        "api.github.com | GET    | /search/issues?q=repo:acme/widgets                | INJECTED               | rest             | ",
        "api.github.com | GET    | /repositories/1296269                             | REPOSITORY_NOT_ALLOWED | rest             | ",
        "api.github.com | POST   | /user/repos                                       | REPOSITORY_NOT_ALLOWED | rest             | ",
        "api.github.com | DELETE | /installation/token                               | REPOSITORY_NOT_ALLOWED | rest             | ",
        "api.github.com | POST   | /orgs/acme/repos                                  | REPOSITORY_NOT_ALLOWED | rest             | ",
        // REST calls that move refs: only the job's branch.
        "api.github.com | PATCH  | /repos/acme/widgets/git/refs/heads/agent/job-17   | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | PUT    | /repos/acme/widgets/pulls/7/update-branch         | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | patch  | /repos/acme/widgets                               | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | POST   | /repos/acme/widgets                               | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | POST   | /repos/acme/widgets/contents/README.md            | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | GET    | /repos/acme/widgets/pulls/7/merge                 | INJECTED               | rest             | acme/widgets",
        "api.github.com | PATCH  | /repos/acme/widgets/git/refs/heads/main           | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | DELETE | /repos/acme/widgets/git/refs/heads/agent/job-17   | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | POST   | /repos/acme/widgets/git/refs                      | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | PUT    | /repos/acme/widgets/pulls/7/merge                 | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | PUT    | /repos/acme/widgets/contents/README.md            | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | POST   | /repos/acme/widgets/releases                      | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | PATCH  | /repos/acme/widgets                               | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | DELETE | /repos/acme/widgets                               | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | POST   | /repos/acme/widgets/merges                        | REF_NOT_ALLOWED        | rest             | acme/widgets",
        "api.github.com | GET    | /repos/acme/widgets/git/refs/heads/main           | INJECTED               | rest             | acme/widgets",
        "api.github.com | POST   | /repos/acme/widgets/git/blobs                     | INJECTED               | rest             | acme/widgets",
        "api.github.com | POST   | /graphql                                          | INJECTED               | graphql          | ",
        // git smart HTTP on github.com.
        "github.com     | GET    | /acme/widgets.git/info/refs?service=git-upload-pack | INJECTED             | git-upload-pack  | acme/widgets",
        "github.com     | GET    | /Acme/Widgets/info/refs?service=git-receive-pack  | INJECTED               | git-receive-pack | Acme/Widgets",
        "github.com     | POST   | /acme/widgets.git/git-upload-pack                 | INJECTED               | git-upload-pack  | acme/widgets",
        "github.com     | POST   | /acme/widgets.git/git-receive-pack                | INJECTED               | git-receive-pack | acme/widgets",
        "github.com     | GET    | /acme/secret-plans.git/info/refs?service=git-upload-pack | REPOSITORY_NOT_ALLOWED | git-upload-pack | acme/secret-plans",
        "github.com     | POST   | /evil/widgets.git/git-receive-pack                | REPOSITORY_NOT_ALLOWED | git-receive-pack | evil/widgets",
        "github.com     | GET    | /acme/widgets/info/refs?service=git-upload-pack&service=git-receive-pack | REPOSITORY_NOT_ALLOWED | rest | acme/widgets",
        // Git LFS (issue 39: it got no token, and the sentinel went to GitHub as a password).
        "github.com     | POST   | /acme/widgets.git/info/lfs/objects/batch          | INJECTED               | git-lfs          | acme/widgets",
        "github.com     | GET    | /Acme/Widgets/info/lfs/locks?path=a.bin           | INJECTED               | git-lfs          | Acme/Widgets",
        "github.com     | POST   | /acme/secret-plans.git/info/lfs/objects/batch     | REPOSITORY_NOT_ALLOWED | git-lfs          | acme/secret-plans",
        // Neither the API nor git: nothing injected, nothing refused.
        "github.com     | GET    | /acme/widgets/archive/refs/heads/main.zip         | UNCHANGED              |                  | ",
        "github.com     | GET    | /login                                            | UNCHANGED              |                  | ",
    })
    void eachRequest(String host, String method, String path, Injection.Outcome outcome, String operation, String repository)
            throws Exception {
        Injection injection = apply(host, method, path, TOKEN, true);

        assertEquals(outcome, injection.outcome(), injection.detail());
        if (outcome == Injection.Outcome.UNCHANGED) {
            assertEquals("token " + SENTINEL, authorization(injection), "nothing injected where nothing is the API or git");
            return;
        }
        assertNotNull(github(injection));
        assertEquals(operation, github(injection).operation());
        assertEquals(repository, github(injection).repository());
        if (outcome == Injection.Outcome.INJECTED) {
            String expected = github(injection).git()
                    ? "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + TOKEN).getBytes(StandardCharsets.UTF_8))
                    : "Bearer " + TOKEN;
            assertEquals(expected, authorization(injection), "one Authorization, in the form the host reads; the sentinel's gone");
            assertEquals("github", injection.applied().get(0).credential());
            assertEquals(operation.equals("git-receive-pack") && method.equals("POST"), github(injection).check() instanceof PushCheck.Plan,
                    "a push carries the branch rule's check of its body");
        } else {
            assertNull(injection.headers(), "a refusal sends nothing");
            assertTrue(!injection.detail().contains(TOKEN));
        }
    }

    @Test
    void refusalsSayWhatTheJobHas() throws Exception {
        Injection refused = apply("api.github.com", "GET", "/repos/acme/secret-plans", TOKEN, true);
        assertTrue(refused.detail().contains("Acme/Widgets, acme/gadgets") && refused.detail().contains("acme/secret-plans"),
                refused.detail());
        Injection ref = apply("api.github.com", "PUT", "/repos/acme/widgets/pulls/7/merge", TOKEN, true);
        assertTrue(ref.detail().contains("refs/heads/agent/job-17"), ref.detail());
    }

    @Test
    void twoInstallationsOnOneHostEachReachTheirOwnRepositories() throws Exception {
        GitHubAppSpec other = new GitHubAppSpec(URI.create("https://api.github.com"), "99", SecretRef.parse("file:/o.pem"), 7L,
                List.of("other-org/tools"), Map.of("contents", "read"), new BranchRule(List.of("agent/job-17")), true);
        CredentialSpec second = new CredentialSpec("github-other", List.of(HostPattern.parse("api.github.com"),
                HostPattern.parse("github.com")), Set.of(443), Set.of(), List.of(), null, null, "Bearer {secret}", null, false, false, other);
        GitHubStep step = new GitHubStep(List.of(spec(true), second), store(TOKEN));
        Injection injection = step.apply(new OutgoingRequest(true, Destination.parse("github.com", 443), "GET",
                "/other-org/tools.git/info/refs?service=git-upload-pack", List.of()));
        assertEquals(Injection.Outcome.INJECTED, injection.outcome(), injection.detail());
        assertEquals("github-other", injection.credential());
        assertEquals(Injection.Outcome.REPOSITORY_NOT_ALLOWED, step.apply(new OutgoingRequest(true, Destination.parse("github.com", 443),
                "GET", "/third/thing.git/info/refs?service=git-upload-pack", List.of())).outcome());
    }

    @Test
    void gitLfsBatchesAreJudgedByTheirOperationAndAReadOnlyJobWritesNoLocks() throws Exception {
        Injection batch = apply("github.com", "POST", "/acme/widgets.git/info/lfs/objects/batch", TOKEN, true);
        assertTrue(github(batch).check() instanceof RestWriteCheck.Plan plan && plan.field() == RestWriteCheck.Field.OPERATION
                && plan.mayPush(), "the batch's operation is read: " + github(batch).check());
        assertEquals(AnswerStyle.JSON_MESSAGE, github(batch).answerStyle(), "git-lfs prints message");

        GitHubAppSpec readOnly = new GitHubAppSpec(URI.create("https://api.github.com"), "123456", SecretRef.parse("file:/k.pem"),
                42L, List.of("acme/widgets"), Map.of("contents", "read"), new BranchRule(List.of("agent/job-17")), true);
        GitHubStep step = new GitHubStep(List.of(new CredentialSpec("github", List.of(HostPattern.parse("github.com")), Set.of(443),
                Set.of(), List.of(), SENTINEL, null, "Bearer {secret}", null, false, false, readOnly)), store(TOKEN));
        Destination github = Destination.parse("github.com", 443);
        Injection lock = step.apply(new OutgoingRequest(true, github, "POST", "/acme/widgets.git/info/lfs/locks", List.of()));
        assertEquals(Injection.Outcome.REF_NOT_ALLOWED, lock.outcome(), lock.detail());
        assertTrue(lock.detail().contains("contents permission is read"), lock.detail());
        assertEquals(Injection.Outcome.INJECTED, step.apply(new OutgoingRequest(true, github, "POST",
                "/acme/widgets.git/info/lfs/locks/verify", List.of())).outcome(), "verifying locks reads");
        Injection readOnlyBatch = step.apply(new OutgoingRequest(true, github, "POST", "/acme/widgets.git/info/lfs/objects/batch",
                List.of()));
        assertTrue(github(readOnlyBatch).check() instanceof RestWriteCheck.Plan plan && !plan.mayPush());
    }

    @Test
    void publicReadLetsFetchesAndReadsOfOtherRepositoriesGoAnonymousAndNothingElse() throws Exception {
        GitHubAppSpec app = new GitHubAppSpec(URI.create("https://api.github.com"), "123456", SecretRef.parse("file:/k.pem"), 42L,
                List.of("acme/widgets"), Map.of("contents", "write"), new BranchRule(List.of("agent/job-17")), true, true);
        GitHubStep step = new GitHubStep(List.of(new CredentialSpec("github", List.of(HostPattern.parse("api.github.com"),
                HostPattern.parse("github.com")), Set.of(443), Set.of(), List.of(), SENTINEL, null, "Bearer {secret}", null, false, false,
                app)), store(TOKEN));
        List<Map.Entry<String, String>> sentinel = List.of(Map.entry("Authorization", "token " + SENTINEL), Map.entry("Accept", "*/*"));
        for (String[] read : new String[][] {{"github.com", "GET", "/octo/lib.git/info/refs?service=git-upload-pack"},
            {"github.com", "POST", "/octo/lib.git/git-upload-pack"}, {"api.github.com", "GET", "/repos/octo/lib/releases/latest"},
            {"github.com", "POST", "/octo/lib.git/info/lfs/objects/batch"}}) {
            Injection anonymous = step.apply(new OutgoingRequest(true, Destination.parse(read[0], 443), read[1], read[2], sentinel));
            assertEquals(Injection.Outcome.UNCHANGED, anonymous.outcome(), read[2] + ": " + anonymous.detail());
            assertNull(authorization(anonymous), "neither the token nor the sentinel goes: " + read[2]);
            assertEquals(List.of(Map.entry("Accept", "*/*")), anonymous.headers());
        }
        Injection batch = step.apply(new OutgoingRequest(true, Destination.parse("github.com", 443), "POST",
                "/octo/lib.git/info/lfs/objects/batch", sentinel));
        assertTrue(github(batch).check() instanceof RestWriteCheck.Plan plan && !plan.mayPush(), "an LFS batch goes as a download only");
        for (String[] write : new String[][] {{"github.com", "GET", "/octo/lib.git/info/refs?service=git-receive-pack"},
            {"github.com", "POST", "/octo/lib.git/git-receive-pack"}, {"api.github.com", "POST", "/repos/octo/lib/issues"},
            {"api.github.com", "PUT", "/repos/octo/lib/contents/a.txt"}, {"github.com", "POST", "/octo/lib.git/info/lfs/locks"}}) {
            Injection refused = step.apply(new OutgoingRequest(true, Destination.parse(write[0], 443), write[1], write[2], sentinel));
            assertEquals(Injection.Outcome.REPOSITORY_NOT_ALLOWED, refused.outcome(), write[2]);
            assertTrue(refused.detail().contains("public_read lets only fetches and reads"), refused.detail());
        }
        assertEquals("Bearer " + TOKEN, authorization(step.apply(new OutgoingRequest(true, Destination.parse("api.github.com", 443), "GET",
                "/repos/acme/widgets", sentinel))), "the job's own repository still gets the token");
    }

    @Test
    void graphqlCanBeTurnedOff() throws Exception {
        assertEquals(Injection.Outcome.REPOSITORY_NOT_ALLOWED, apply("api.github.com", "POST", "/graphql", TOKEN, false).outcome());
    }

    @Test
    void withoutATokenNothingGoesAndTheSentinelIsNeverForwardedAsIfItWereOne() throws Exception {
        Injection injection = apply("api.github.com", "GET", "/repos/acme/widgets", null, true);
        assertEquals(Injection.Outcome.UNAVAILABLE, injection.outcome());
        assertNull(injection.headers());
    }

    @Test
    void gitHubEnterpriseServerKeepsTheApiUnderApiV3AndGitBesideIt() throws Exception {
        GitHubAppSpec app = new GitHubAppSpec(URI.create("https://ghe.example.org/api/v3"), "7", SecretRef.parse("file:/k.pem"),
                1L, List.of("acme/widgets"), Map.of("contents", "write"), new BranchRule(List.of("agent/job-17")), true);
        CredentialSpec ghes = new CredentialSpec("ghe", List.of(HostPattern.parse("ghe.example.org")), Set.of(443), Set.of(), List.of(),
                SENTINEL, null, "Bearer {secret}", null, false, false, app);
        GitHubStep step = new GitHubStep(List.of(ghes), store(TOKEN));
        Destination host = Destination.parse("ghe.example.org", 443);
        List<Map.Entry<String, String>> none = List.of();
        assertEquals("rest", github(step.apply(new OutgoingRequest(true, host, "GET", "/api/v3/repos/acme/widgets", none))).operation());
        assertEquals("graphql", github(step.apply(new OutgoingRequest(true, host, "POST", "/api/graphql", none))).operation());
        Injection git = step.apply(new OutgoingRequest(true, host, "GET", "/acme/widgets.git/info/refs?service=git-upload-pack", none));
        assertEquals("git-upload-pack", github(git).operation());
        assertEquals(Injection.Outcome.INJECTED, git.outcome());
        assertEquals(Injection.Outcome.REPOSITORY_NOT_ALLOWED,
                step.apply(new OutgoingRequest(true, host, "GET", "/api/v3/repos/acme/other", none)).outcome());
    }

    /** What the step made of the request as a {@code github_app} use, or {@code null}. */
    private static GitHubUse github(Injection injection) {
        return injection.use() instanceof GitHubUse use ? use : null;
    }
}
