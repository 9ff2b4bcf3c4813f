package org.cyverse.mesa.egress.injector.mint;

import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.Minter;
import org.cyverse.mesa.egress.injector.MintContext;

/**
 * {@code mint: {litellm: ...}}: LiteLLM virtual keys minted per analysis ({@link LiteLlmMinter});
 * the injector puts them on requests as it puts any secret (no step of its own).
 */
public final class LiteLlmKind implements CredentialKind {

    /** The one instance: a kind has no state. */
    public static final LiteLlmKind INSTANCE = new LiteLlmKind();

    private LiteLlmKind() {}

    @Override
    public String name() {
        return "mint";
    }

    @Override
    public Minter minter(CredentialSpec credential, MintContext context) {
        return new LiteLlmMinter(credential.name(), credential.kind(LiteLlmSpec.class), context.secrets(), context.http(),
                context.timeout());
    }
}
