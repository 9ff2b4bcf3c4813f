package org.cyverse.mesa.egress.injector.github;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.cyverse.mesa.egress.injector.Secret;

/**
 * Whether a branch's old tip is an ancestor of the commits a push builds on, asked of GitHub when
 * the pack alone cannot tell (issue 39): after {@code git merge --ff-only origin/main} or a
 * rebase onto a moved {@code main}, git sends only the commits GitHub lacks, so the pack's history
 * stops at commits already on GitHub ({@link PackCommits#boundary}). GitHub's compare API
 * ({@code GET /repos/{owner}/{repo}/compare/{base}...{head}}, REST docs "Compare two commits")
 * says {@code ahead} or {@code identical} when {@code base} is an ancestor of {@code head},
 * {@code behind} or {@code diverged} otherwise. Asked with the job's installation token, at most
 * {@value #MAX_TIPS} questions per update, each bounded by the timeout; no answer is no proof.
 * Thread-safe; the futures complete on the HTTP client's threads.
 */
public final class GitHubAncestry {

    /** The most commits one update's history may leave the pack at (a merge of many branches is not proved). */
    static final int MAX_TIPS = 8;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What GitHub said of one update. */
    public sealed interface Answer {
        /** The old tip is an ancestor of a commit the push builds on: a fast-forward. */
        record Proven() implements Answer {}

        /** GitHub says the old tip is an ancestor of none: a force push. */
        record Refuted() implements Answer {}

        /** No proof either way: why, for the refusal. */
        record Unknown(String why) implements Answer {}
    }

    private final HttpClient http;
    private final URI api;
    private final Duration timeout;
    private final Supplier<Optional<Secret>> token;

    /**
     * @param http a client that does not follow redirects (the token goes to {@code api} only)
     * @param token the credential's current installation token
     */
    public GitHubAncestry(HttpClient http, URI api, Duration timeout, Supplier<Optional<Secret>> token) {
        this.http = http;
        this.api = api;
        this.timeout = timeout;
        this.token = token;
    }

    /** Whether {@code ancestor} is an ancestor of (or one of) {@code tips} in {@code repository}. */
    public CompletableFuture<Answer> isAncestor(String repository, String ancestor, Set<String> tips) {
        if (tips.isEmpty() || tips.size() > MAX_TIPS) {
            return CompletableFuture.completedFuture(new Answer.Unknown(tips.isEmpty() ? "the pack's history could not be followed"
                    : "its history leaves the pack at " + tips.size() + " commits (at most " + MAX_TIPS + " are asked about)"));
        }
        if (!ancestor.matches("[0-9a-f]{40}") || !tips.stream().allMatch(t -> t.matches("[0-9a-f]{40}"))) {
            return CompletableFuture.completedFuture(new Answer.Unknown("a commit id is not a SHA-1 id"));
        }
        Optional<Secret> current = token.get();
        if (current.isEmpty()) {
            return CompletableFuture.completedFuture(new Answer.Unknown("the credential has no installation token to ask GitHub with"));
        }
        List<CompletableFuture<Answer>> asked = new ArrayList<>();
        for (String tip : tips) {
            asked.add(compare(repository, ancestor, tip, current.get()));
        }
        return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<Answer> answers = asked.stream().map(CompletableFuture::join).toList();
            if (answers.stream().anyMatch(a -> a instanceof Answer.Proven)) {
                return new Answer.Proven();
            }
            return answers.stream().filter(a -> a instanceof Answer.Unknown).findFirst().orElse(new Answer.Refuted());
        });
    }

    private CompletableFuture<Answer> compare(String repository, String base, String head, Secret token) {
        String root = api.toString().replaceAll("/+$", "");
        HttpRequest request = HttpRequest.newBuilder(URI.create(root + "/repos/" + repository + "/compare/" + base + "..." + head + "?per_page=1"))
                .timeout(timeout).header("Accept", "application/vnd.github+json").header("X-GitHub-Api-Version", GitHubAppMinter.API_VERSION)
                .header("User-Agent", "mesa-egress").header("Authorization", "Bearer " + token.reveal()).GET().build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                .thenApply(answer -> read(answer, head))
                .exceptionally(e -> new Answer.Unknown("GitHub's compare API at " + api + " did not answer ("
                        + (e.getCause() != null ? e.getCause() : e).getClass().getSimpleName() + ")"));
    }

    private static Answer read(HttpResponse<String> answer, String head) {
        if (answer.statusCode() == 404) {
            return new Answer.Unknown("GitHub's compare API does not know commit " + head + " or the repository (404)");
        }
        if (answer.statusCode() != 200) {
            return new Answer.Unknown("GitHub's compare API answered " + answer.statusCode());
        }
        try {
            JsonNode json = JSON.readTree(answer.body());
            return switch (json == null ? "" : json.path("status").asText("")) {
                case "ahead", "identical" -> new Answer.Proven();
                case "behind", "diverged" -> new Answer.Refuted();
                default -> new Answer.Unknown("GitHub's compare answer has no status the proxy knows");
            };
        } catch (IOException e) {
            return new Answer.Unknown("GitHub's compare answer is not JSON");
        }
    }
}
