package org.cyverse.mesa.egress.injector.mint;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.KindSpec;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * {@code mint.litellm}: a LiteLLM virtual key per analysis ({@code POST /key/generate}), put on
 * requests by the injector like any secret ({@link LiteLlmKind}).
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
public record LiteLlmSpec(URI url, SecretRef masterKey, String duration, Double maxBudget, List<String> models,
        Map<String, String> metadata, String keyAlias, boolean deleteOnStop) implements KindSpec {

    public LiteLlmSpec {
        models = List.copyOf(models);
        metadata = Map.copyOf(metadata);
    }

    @Override
    public CredentialKind kind() {
        return LiteLlmKind.INSTANCE;
    }

    @Override
    public boolean minted() {
        return true;
    }

    @Override
    public List<SecretRef> needs() {
        return List.of(masterKey);
    }

    @Override
    public String describe(CredentialSpec credential) {
        return "minted: litellm virtual key from " + url + " (master key " + masterKey + "; duration " + (duration == null ? "none" : duration)
                + ", max_budget " + (maxBudget == null ? "none" : maxBudget + " USD") + ", models "
                + (models.isEmpty() ? "all the gateway allows" : String.join(", ", models)) + ")";
    }
}
