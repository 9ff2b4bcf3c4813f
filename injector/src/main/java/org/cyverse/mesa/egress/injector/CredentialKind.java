package org.cyverse.mesa.egress.injector;

import java.util.List;

/**
 * A kind of credential beyond a plain secret put in a header (SPEC.md step 5): a minted value, a
 * re-signed request, a token with rules of its own. One object per kind, registered once (the
 * config's list of kinds); the core names no kind. A credential of the kind carries its
 * {@link KindSpec}, whose {@link KindSpec#kind()} leads back here, so the proxy finds a
 * credential's step and minter without knowing what the kind is.
 *
 * <p>What a new kind adds: a package with its spec (a {@link KindSpec}), this object, and
 * whatever step, minter or body check it needs; the config module's reader for its block; and
 * one line in the config's registry of kinds.
 */
public interface CredentialKind {

    /** The config key under a credential that makes it of this kind, e.g. {@code github_app}; also its name in messages. */
    String name();

    /**
     * The step that handles this kind's credentials on requests (refuses, rewrites, re-signs), or
     * {@code null} when {@link Injector}'s sentinel and header handling is all the kind needs.
     *
     * @param credentials every credential of the config (a step picks those of its kind); at least one is of this kind
     * @param context the current values, and a client for the services the step's checks may ask
     */
    default CredentialStep step(List<CredentialSpec> credentials, StepContext context) {
        return null;
    }

    /**
     * The minter of {@code credential}'s values, or {@code null} when they are read from its
     * {@code secret}. Called once per config, off any event loop.
     */
    default Minter minter(CredentialSpec credential, MintContext context) {
        return null;
    }
}
