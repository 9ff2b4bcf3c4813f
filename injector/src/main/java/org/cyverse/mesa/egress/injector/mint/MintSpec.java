package org.cyverse.mesa.egress.injector.mint;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * How a minted credential's value is made: the {@code mint:} block of a credential (LiteLLM), or
 * the credential's {@code github_app:} block.
 */
public sealed interface MintSpec permits MintSpec.LiteLlm, MintSpec.GitHubApp {

    /** The secrets the minter itself needs (never injected anywhere). */
    List<SecretRef> needs();

    /** For {@code check} and {@code validate}: where the values come from and what they may do, without a secret. */
    String describe();

    /**
     * {@code mint.litellm}: a LiteLLM virtual key per analysis ({@code POST /key/generate}).
     *
     * @param url the LiteLLM proxy's base URL (its admin API)
     * @param masterKey where the master key comes from; it never leaves the proxy but toward {@code url}
     * @param duration LiteLLM's {@code duration} ({@code 30s}, {@code 30m}, {@code 8h}, {@code 7d}), or {@code null} for none
     * @param maxBudget LiteLLM's {@code max_budget} in USD for the whole analysis, or {@code null} for none
     * @param models LiteLLM's {@code models}; empty = every model the gateway allows
     * @param metadata LiteLLM's {@code metadata}, with {@code ${VAR}} already expanded
     * @param keyAlias the prefix of LiteLLM's {@code key_alias}; each minted key gets it plus a sequence number
     * @param deleteOnStop whether {@code /key/delete} follows {@code /key/block} on stop and kill
     */
    record LiteLlm(URI url, SecretRef masterKey, String duration, Double maxBudget, List<String> models,
            Map<String, String> metadata, String keyAlias, boolean deleteOnStop) implements MintSpec {
        public LiteLlm {
            models = List.copyOf(models);
            metadata = Map.copyOf(metadata);
        }

        @Override
        public List<SecretRef> needs() {
            return List.of(masterKey);
        }

        @Override
        public String describe() {
            return "litellm virtual key from " + url + " (master key " + masterKey + "; duration " + (duration == null ? "none" : duration)
                    + ", max_budget " + (maxBudget == null ? "none" : maxBudget + " USD") + ", models "
                    + (models.isEmpty() ? "all the gateway allows" : String.join(", ", models)) + ")";
        }
    }

    /**
     * {@code github_app}: a GitHub App installation token per job ({@code POST
     * /app/installations/{id}/access_tokens}), scoped to {@code repositories} and
     * {@code permissions} by GitHub, and to {@code branch} by the proxy.
     *
     * @param apiUrl the REST API's base URL ({@code https://api.github.com}, or {@code https://HOST/api/v3} for GitHub Enterprise Server)
     * @param appId the App's id or client id: the JWT's {@code iss}
     * @param privateKey where the App's private key (PEM) comes from; it signs the JWT and goes nowhere
     * @param installationId the installation whose token is minted
     * @param repositories {@code owner/name}, as configured (compared without regard to case, as GitHub does)
     * @param permissions GitHub's permission names to {@code read}, {@code write} or {@code admin}
     * @param rule which refs a push may update
     * @param graphql whether {@code POST /graphql} is let through (the token's repository scope is then its only limit)
     */
    record GitHubApp(URI apiUrl, String appId, SecretRef privateKey, long installationId, List<String> repositories,
            Map<String, String> permissions, org.cyverse.mesa.egress.injector.github.BranchRule rule, boolean graphql) implements MintSpec {
        public GitHubApp {
            repositories = List.copyOf(repositories);
            permissions = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(permissions));
        }

        @Override
        public List<SecretRef> needs() {
            return List.of(privateKey);
        }

        @Override
        public String describe() {
            return "GitHub App installation token from " + apiUrl + " (app " + appId + ", installation " + installationId
                    + ", private key " + privateKey + "; repositories " + String.join(", ", repositories) + "; permissions "
                    + permissions + "; pushes only to " + rule.describe() + (rule.forcePush() ? ", force pushes allowed" : ", fast-forwards only")
                    + (graphql ? "" : "; GraphQL refused") + ")";
        }
    }
}
