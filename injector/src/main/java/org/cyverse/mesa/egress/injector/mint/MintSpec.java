package org.cyverse.mesa.egress.injector.mint;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.SecretRef;

/** How a minted credential's value is made: the {@code mint:} block of a credential. One kind today. */
public sealed interface MintSpec permits MintSpec.LiteLlm {

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
}
