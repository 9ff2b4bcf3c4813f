package org.cyverse.mesa.egress.injector.github;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.KindSpec;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * {@code github_app}: a GitHub App installation token per job ({@code POST
 * /app/installations/{id}/access_tokens}), scoped to {@code repositories} and
 * {@code permissions} by GitHub, and to {@code branch} by the proxy ({@link GitHubAppKind}).
 *
 * @param apiUrl the REST API's base URL ({@code https://api.github.com}, or {@code https://HOST/api/v3} for GitHub Enterprise Server)
 * @param appId the App's id or client id: the JWT's {@code iss}
 * @param privateKey where the App's private key (PEM) comes from; it signs the JWT and goes nowhere
 * @param installationId the installation whose token is minted
 * @param repositories {@code owner/name}, as configured (compared without regard to case, as GitHub does)
 * @param permissions GitHub's permission names to {@code read}, {@code write} or {@code admin}
 * @param rule which refs a push may update
 * @param graphql whether {@code POST /graphql} is let through (the token's repository scope is then its only limit)
 * @param publicRead whether fetches and reads of other repositories go out anonymous, without the token (GitHub then
 *     answers for public ones only); never a push or a write
 * @param graphqlAllow GraphQL mutations let go besides the harmless ones ({@link GraphQlMutations#HARMLESS})
 */
public record GitHubAppSpec(URI apiUrl, String appId, SecretRef privateKey, long installationId, List<String> repositories,
        Map<String, String> permissions, BranchRule rule, boolean graphql, boolean publicRead, List<String> graphqlAllow)
        implements KindSpec {

    /** With no mutation allowed by name. */
    public GitHubAppSpec(URI apiUrl, String appId, SecretRef privateKey, long installationId, List<String> repositories,
            Map<String, String> permissions, BranchRule rule, boolean graphql, boolean publicRead) {
        this(apiUrl, appId, privateKey, installationId, repositories, permissions, rule, graphql, publicRead, List.of());
    }

    /** Without {@code public_read}. */
    public GitHubAppSpec(URI apiUrl, String appId, SecretRef privateKey, long installationId, List<String> repositories,
            Map<String, String> permissions, BranchRule rule, boolean graphql) {
        this(apiUrl, appId, privateKey, installationId, repositories, permissions, rule, graphql, false, List.of());
    }

    public GitHubAppSpec {
        repositories = List.copyOf(repositories);
        graphqlAllow = List.copyOf(graphqlAllow);
        permissions = Collections.unmodifiableMap(new LinkedHashMap<>(permissions));
    }

    @Override
    public CredentialKind kind() {
        return GitHubAppKind.INSTANCE;
    }

    @Override
    public boolean minted() {
        return true;
    }

    /** Put on requests by {@link GitHubStep}, with the repository and branch rules. */
    @Override
    public boolean ownStep() {
        return true;
    }

    @Override
    public List<SecretRef> needs() {
        return List.of(privateKey);
    }

    @Override
    public String describe(CredentialSpec credential) {
        return "minted: GitHub App installation token from " + apiUrl + " (app " + appId + ", installation " + installationId
                + ", private key " + privateKey + "; repositories " + String.join(", ", repositories) + "; permissions "
                + permissions + "; pushes only to " + rule.describe() + (rule.forcePush() ? ", force pushes allowed" : ", fast-forwards only")
                + (graphql ? "; GraphQL mutations judged by the branch rule" + (graphqlAllow.isEmpty() ? "" : ", also allowed: "
                        + String.join(", ", graphqlAllow)) : "; GraphQL refused") + (publicRead ? "; other repositories read anonymously (public_read)" : "") + ")";
    }
}
