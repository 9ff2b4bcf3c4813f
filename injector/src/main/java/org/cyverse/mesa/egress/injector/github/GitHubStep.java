package org.cyverse.mesa.egress.injector.github;

import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.Minters;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretValues;
import org.cyverse.mesa.egress.injector.StepContext;
import org.cyverse.mesa.egress.injector.WholeAnswers;

/**
 * The {@code github_app} credentials of SPEC.md step 5: to the API, {@code Authorization: Bearer
 * <installation token>} (whatever the agent sent: {@code token <sentinel>}, {@code Bearer
 * <sentinel>}, nothing); to git smart HTTP, {@code Authorization: Basic x-access-token:<token>}.
 * Only for the job's repositories: a REST call naming another repository, a REST path outside
 * the repository-free reads, and git for another repository are refused
 * {@code repository_not_allowed}; REST calls that move refs other than the job's branch are
 * refused {@code ref_not_allowed}, and a push carries a {@link PushCheck} that its command list
 * must pass before any of it leaves. Anything else on the credential's hosts (web pages,
 * archives) goes unchanged, with nothing injected. Pure apart from reading the store; thread-safe.
 *
 * <p>The {@link org.cyverse.mesa.egress.injector.Injector} before this step keeps the sentinel
 * away from other hosts and refuses the real token wherever the agent sends it.
 */
public final class GitHubStep implements CredentialStep {

    private final List<CredentialSpec> credentials;
    private final SecretValues store;
    private final Supplier<HttpClient> services;

    public GitHubStep(List<CredentialSpec> credentials, SecretValues store) {
        this(credentials, StepContext.offline(store));
    }

    /** @param context the values, and the client a push's check asks GitHub's compare API with */
    public GitHubStep(List<CredentialSpec> credentials, StepContext context) {
        this.credentials = credentials.stream().filter(c -> c.kind(GitHubAppSpec.class) != null).toList();
        this.store = context.store();
        this.services = context.services();
    }

    @Override
    public Injection apply(OutgoingRequest request) {
        List<CredentialSpec> covering = credentials.stream().filter(s -> s.covers(request.destination())).toList();
        if (covering.isEmpty()) {
            return unchanged(request, null);
        }
        String pathAndQuery = request.pathAndQuery();
        int q = pathAndQuery.indexOf('?');
        // Two installations on one host (two accounts): the one whose repositories the request names.
        CredentialSpec c = covering.size() == 1 ? covering.get(0) : covering.stream()
                .filter(s -> jobHas(s.kind(GitHubAppSpec.class), route(s, request, pathAndQuery, q).repository())).findFirst()
                .orElse(covering.get(0));
        GitHubRoute route = route(c, request, pathAndQuery, q);
        GitHubAppSpec app = c.kind(GitHubAppSpec.class);
        String operation = switch (route.kind()) {
            case GIT_FETCH -> "git-upload-pack";
            case GIT_PUSH_REFS, GIT_PUSH -> "git-receive-pack";
            case GRAPHQL -> "graphql";
            case GIT_LFS -> "git-lfs";
            default -> "rest";
        };
        GitHubUse use = new GitHubUse(route.repository(), operation, null);
        String refused = switch (route.kind()) {
            case OTHER -> null;
            case UNREADABLE -> "the path of this request to " + request.destination().authority() + " cannot be read unambiguously (an"
                    + " encoded \"/\", a dot segment or an unknown git service)";
            case REST_OTHER -> "the REST call " + request.method() + " " + route.rest() + " names none of the job's repositories and is"
                    + " not one of the repository-free reads";
            case GRAPHQL -> app.graphql() ? null : "GraphQL is refused for credential " + c.name() + " (graphql: false)";
            case REST_FREE -> null;
            case REST_REPOSITORY, GIT_FETCH, GIT_PUSH_REFS, GIT_PUSH, GIT_LFS -> jobHas(app, route.repository()) ? null : "the job's repositories"
                    + " (credential " + c.name() + ": " + String.join(", ", app.repositories()) + ") do not include " + route.repository();
        };
        if (route.kind() == GitHubRoute.Kind.OTHER) {
            return unchanged(request, null);
        }
        if (refused != null && app.publicRead() && route.repository() != null && !jobHas(app, route.repository())) {
            Injection anonymous = anonymous(request, route, c, use, app.rule());
            if (anonymous != null) {
                return anonymous;
            }
            refused += " (public_read lets only fetches and reads of other repositories go, anonymous)";
        }
        if (refused != null) {
            return refusal(Injection.Outcome.REPOSITORY_NOT_ALLOWED, c, refused, use);
        }
        RestWriteCheck.Plan restWrite = null;
        if (route.kind() == GitHubRoute.Kind.REST_REPOSITORY) {
            RestRefRule.Ruling ruling = RestRefRule.judge(request.method(), route.rest(), app.rule());
            String why = ruling.refused() != null ? ruling.refused()
                    : ruling.field() != null && !hasBody(request) ? ruling.call() + " names its branch in its body, and this call has none"
                    : null;
            if (why != null) {
                return refusal(Injection.Outcome.REF_NOT_ALLOWED, c, why + " (repository " + route.repository() + ")", use);
            }
            if (ruling.field() != null) {
                restWrite = new RestWriteCheck.Plan(c.name(), route.repository(), ruling.call(), ruling.field(), ruling.ref(), app.rule());
            }
        }
        if (route.kind() == GitHubRoute.Kind.GIT_LFS) {
            boolean mayPush = app.permissions().isEmpty() || "write".equals(app.permissions().get("contents"));
            String method = request.method().toUpperCase(Locale.ROOT);
            boolean batch = route.rest().equals("/objects/batch");
            boolean read = method.equals("GET") || method.equals("HEAD") || method.equals("POST") && route.rest().equals("/locks/verify");
            if (batch && method.equals("POST")) {
                restWrite = new RestWriteCheck.Plan(c.name(), route.repository(), "Git LFS batch", RestWriteCheck.Field.OPERATION, null,
                        app.rule(), mayPush);
            } else if (!read && !mayPush) {
                return refusal(Injection.Outcome.REF_NOT_ALLOWED, c, "Git LFS " + method + " " + route.rest() + " writes, and the job's"
                        + " token may not write " + route.repository() + " (its contents permission is read)", use);
            }
        }
        if (!request.tls() && !c.allowPlaintext()) {
            return refusal(Injection.Outcome.PLAINTEXT, c, "credential " + c.name() + " is injected only over https", use);
        }
        Optional<Secret> token = store.current(c.name());
        if (token.isEmpty()) {
            return refusal(Injection.Outcome.UNAVAILABLE, c, "credential " + c.name() + " has no valid installation token now (not minted"
                    + " yet, GitHub refused or unreachable, expired or revoked)", use);
        }
        boolean git = use.git();
        String value = git ? "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + token.get().reveal())
                .getBytes(StandardCharsets.UTF_8)) : "Bearer " + token.get().reveal();
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (Map.Entry<String, String> h : request.headers()) {
            if (!h.getKey().equalsIgnoreCase("authorization")) {
                headers.add(h);
            }
        }
        headers.add(Map.entry("Authorization", value));
        List<String> actions = new ArrayList<>();
        actions.add("authorization set: installation token as " + (git ? "Basic x-access-token" : "Bearer") + " (" + where(route, operation) + ")");
        if (WholeAnswers.ask(headers)) {
            actions.add(WholeAnswers.ACTION);
        }
        if (route.kind() == GitHubRoute.Kind.GRAPHQL) {
            use = new GitHubUse(null, operation, new GraphQlCheck.Plan(c.name(), app.rule(), app.repositories(),
                    Set.copyOf(app.graphqlAllow())));
        } else if (route.kind() == GitHubRoute.Kind.GIT_PUSH) {
            use = new GitHubUse(route.repository(), operation, new PushCheck.Plan(c.name(), route.repository(), app.rule(),
                    ancestry(c, app)));
        } else if (restWrite != null) {
            use = new GitHubUse(route.repository(), operation, restWrite);
        }
        return new Injection(Injection.Outcome.INJECTED, c.name(), pathAndQuery, headers, Map.of(), List.of(new Injection.Applied(c.name(),
                List.copyOf(actions))),
                "injected " + c.name(), null, use);
    }

    /** What asks GitHub whether a push the pack alone cannot prove is a fast-forward, or {@code null} where nothing may be asked. */
    private GitHubAncestry ancestry(CredentialSpec c, GitHubAppSpec app) {
        HttpClient http = app.rule().forcePush() ? null : services.get();
        return http == null ? null : new GitHubAncestry(http, app.apiUrl(), Minters.TIMEOUT, () -> store.current(c.name()));
    }

    private static GitHubRoute route(CredentialSpec c, OutgoingRequest request, String pathAndQuery, int q) {
        return GitHubRoute.of(c.kind(GitHubAppSpec.class).apiUrl(), request.destination(), request.method(),
                q < 0 ? pathAndQuery : pathAndQuery.substring(0, q), q < 0 ? null : pathAndQuery.substring(q + 1));
    }

    /**
     * {@code public_read}: a fetch or read of a repository that is not the job's goes out without
     * any credential (the agent's sentinel taken off too), so GitHub answers for public
     * repositories only; an LFS batch goes as a download only. {@code null} for anything else
     * (pushes, writes): refused.
     */
    private static Injection anonymous(OutgoingRequest request, GitHubRoute route, CredentialSpec c, GitHubUse use, BranchRule rule) {
        String method = request.method().toUpperCase(Locale.ROOT);
        boolean read = method.equals("GET") || method.equals("HEAD");
        boolean lfsBatch = route.kind() == GitHubRoute.Kind.GIT_LFS && method.equals("POST") && route.rest().equals("/objects/batch");
        boolean goes = route.kind() == GitHubRoute.Kind.GIT_FETCH || route.kind() == GitHubRoute.Kind.REST_REPOSITORY && read
                || route.kind() == GitHubRoute.Kind.GIT_LFS && read || lfsBatch;
        if (!goes) {
            return null;
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (Map.Entry<String, String> h : request.headers()) {
            if (!h.getKey().equalsIgnoreCase("authorization")) {
                headers.add(h);
            }
        }
        GitHubUse anonymousUse = lfsBatch ? new GitHubUse(route.repository(), use.operation(), new RestWriteCheck.Plan(c.name(),
                route.repository(), "Git LFS batch", RestWriteCheck.Field.OPERATION, null, rule, false)) : use;
        return new Injection(Injection.Outcome.UNCHANGED, null, request.pathAndQuery(), headers, Map.of(), List.of(),
                "anonymous read of " + route.repository() + " (public_read of credential " + c.name() + ")", null, anonymousUse);
    }

    /** Whether the request announces a body, as the proxy's body gate reads it (chunked, or a Content-Length above zero). */
    private static boolean hasBody(OutgoingRequest request) {
        for (Map.Entry<String, String> h : request.headers()) {
            String name = h.getKey();
            if (name.equalsIgnoreCase("transfer-encoding") && h.getValue().toLowerCase(Locale.ROOT).contains("chunked")
                    || name.equalsIgnoreCase("content-length") && !h.getValue().strip().matches("0*")) {
                return true;
            }
        }
        return false;
    }

    private static boolean jobHas(GitHubAppSpec app, String repository) {
        return repository != null && app.repositories().stream().anyMatch(r -> GitHubRoute.key(r).equals(GitHubRoute.key(repository)));
    }

    private static Injection unchanged(OutgoingRequest request, GitHubUse use) {
        return new Injection(Injection.Outcome.UNCHANGED, null, request.pathAndQuery(), request.headers(), Map.of(), List.of(),
                "no credential applies", null, use);
    }

    private static Injection refusal(Injection.Outcome outcome, CredentialSpec c, String detail, GitHubUse use) {
        return new Injection(outcome, c.name(), null, null, Map.of(), List.of(), detail, null, use);
    }

    private static String where(GitHubRoute route, String operation) {
        return route.repository() == null ? operation : operation + " " + route.repository();
    }
}
