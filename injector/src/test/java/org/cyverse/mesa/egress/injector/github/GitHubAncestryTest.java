package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.injector.Secret;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the proxy makes of GitHub's compare answers (WireMock playing GitHub, {@link FakeGitHub#compares}): no answer is no proof. */
class GitHubAncestryTest {

    static final String TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
    static final String OLD = "a".repeat(40);
    static final String MAIN = "b".repeat(40);
    static final String ELSEWHERE = "c".repeat(40);

    @TempDir
    Path dir;
    FakeGitHub github;
    HttpClient http;

    @BeforeEach
    void start() throws Exception {
        github = FakeGitHub.https(dir);
        http = HttpClient.newBuilder().sslContext(FakeGitHubTest.trusting(github.caPem())).followRedirects(HttpClient.Redirect.NEVER).build();
        // OLD is an ancestor of MAIN; ELSEWHERE diverged from it; any other commit is unknown to the repository.
        github.compares("acme", "widgets", TOKEN, (base, head) -> !base.equals(OLD) ? null
                : head.equals(MAIN) ? new FakeGitHub.Comparison("ahead", 3, 0, OLD)
                : head.equals(ELSEWHERE) ? new FakeGitHub.Comparison("diverged", 1, 2, "d".repeat(40))
                : head.equals(OLD) ? new FakeGitHub.Comparison("identical", 0, 0, OLD) : null);
    }

    @AfterEach
    void stop() {
        github.close();
    }

    private GitHubAncestry.Answer ask(String token, Set<String> tips) throws Exception {
        GitHubAncestry ancestry = new GitHubAncestry(http, URI.create(github.url()), Duration.ofSeconds(5),
                () -> token == null ? Optional.empty() : Optional.of(Secret.of(token)));
        return ancestry.isAncestor("acme/widgets", OLD, tips).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aheadOrIdenticalIsAProofAndOneTipSuffices() throws Exception {
        assertInstanceOf(GitHubAncestry.Answer.Proven.class, ask(TOKEN, Set.of(MAIN)));
        assertInstanceOf(GitHubAncestry.Answer.Proven.class, ask(TOKEN, Set.of(OLD)));
        assertInstanceOf(GitHubAncestry.Answer.Proven.class, ask(TOKEN, new LinkedHashSet<>(List.of(ELSEWHERE, MAIN))));
        assertTrue(github.requests("/repos/acme/widgets/compare/" + OLD + "..." + MAIN).get(0).getHeader("Authorization")
                .equals("Bearer " + TOKEN), "asked with the installation token");
    }

    @Test
    void divergedIsARefutation() throws Exception {
        assertInstanceOf(GitHubAncestry.Answer.Refuted.class, ask(TOKEN, Set.of(ELSEWHERE)));
    }

    @Test
    void anythingElseIsNoProofAndSaysWhy() throws Exception {
        GitHubAncestry.Answer unknownCommit = ask(TOKEN, Set.of("e".repeat(40)));
        assertEquals("GitHub's compare API does not know commit " + "e".repeat(40) + " or the repository (404)",
                ((GitHubAncestry.Answer.Unknown) unknownCommit).why());
        assertEquals("GitHub's compare API answered 401", ((GitHubAncestry.Answer.Unknown) ask("ghs_revoked", Set.of(MAIN))).why());
        assertEquals("the credential has no installation token to ask GitHub with",
                ((GitHubAncestry.Answer.Unknown) ask(null, Set.of(MAIN))).why());
        Set<String> many = new LinkedHashSet<>();
        for (int i = 0; i < 9; i++) {
            many.add(Integer.toHexString(i).repeat(40));
        }
        assertTrue(((GitHubAncestry.Answer.Unknown) ask(TOKEN, many)).why().contains("at 9 commits"));
        assertInstanceOf(GitHubAncestry.Answer.Unknown.class, ask(TOKEN, Set.of("not-a-sha")));
        // A diverged tip and an unknown one: unknown wins over refuted (nothing was proved either way).
        assertInstanceOf(GitHubAncestry.Answer.Unknown.class, ask(TOKEN, new LinkedHashSet<>(List.of(ELSEWHERE, "e".repeat(40)))));
    }

    @Test
    void aServerThatDoesNotAnswerInTimeIsNoProof() throws Exception {
        GitHubAncestry ancestry = new GitHubAncestry(http, URI.create("https://127.0.0.1:1"), Duration.ofSeconds(2),
                () -> Optional.of(Secret.of(TOKEN)));
        GitHubAncestry.Answer answer = ancestry.isAncestor("acme/widgets", OLD, Set.of(MAIN)).get(10, TimeUnit.SECONDS);
        assertTrue(((GitHubAncestry.Answer.Unknown) answer).why().startsWith("GitHub's compare API at https://127.0.0.1:1 did not answer"),
                answer.toString());
    }
}
