package org.cyverse.mesa.egress.injector.oauth2;

import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.MintContext;
import org.cyverse.mesa.egress.injector.Minter;

/**
 * {@code oauth2}: the user's (or the job's) OAuth 2.0 access tokens, minted at the token endpoint
 * ({@link OAuth2Minter}); the injector puts them on requests as it puts any secret.
 */
public final class OAuth2Kind implements CredentialKind {

    /** The one instance: a kind has no state. */
    public static final OAuth2Kind INSTANCE = new OAuth2Kind();

    private OAuth2Kind() {}

    @Override
    public String name() {
        return "oauth2";
    }

    @Override
    public Minter minter(CredentialSpec credential, MintContext context) {
        return new OAuth2Minter(credential.name(), credential.kind(OAuth2Spec.class), context);
    }
}
