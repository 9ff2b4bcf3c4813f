package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Map;

/**
 * The part of a {@link CredentialSpec} that belongs to its {@link CredentialKind} (the block under
 * the kind's key: {@code github_app:}, {@code aws_sigv4:}, {@code mint:}). Immutable; holds
 * references to secrets, never their values.
 */
public interface KindSpec {

    /** The kind this block configures: its step and its minter. */
    CredentialKind kind();

    /** Whether the proxy mints the credential's values (it then has no {@code secret}). */
    default boolean minted() {
        return false;
    }

    /** The secrets the kind itself reads beyond {@code secret} (a minter's key); never injected anywhere. */
    default List<SecretRef> needs() {
        return List.of();
    }

    /**
     * Values fetched together with {@code secret} and valid only with it ({@link SecretLease#parts}), by part name;
     * empty by default.
     */
    default Map<String, SecretRef> parts() {
        return Map.of();
    }

    /**
     * Whether the kind's own {@link CredentialKind#step step} puts the credential on requests,
     * so that {@link Injector} leaves it alone (no sentinel replaced, no header set).
     */
    default boolean ownStep() {
        return false;
    }

    /** For {@code check} and {@code validate}: where the values come from, never a value. */
    String describe(CredentialSpec credential);

    /**
     * What an echoed secret of this credential becomes in an answer to the agent, or {@code null}
     * for the default (its sentinel, else {@code [redacted:NAME]}).
     */
    default String standIn(CredentialSpec credential) {
        return null;
    }

    /**
     * Other values of this credential an answer may echo and the agent must not see, each with
     * what it becomes (an access key id, for its sentinel key id); none by default.
     */
    default Map<String, String> echoes(CredentialSpec credential, SecretValues store) {
        return Map.of();
    }

    /**
     * For {@code check}: what the kind does to a request to {@code destination} beyond what the
     * injector reports (e.g. re-signing), or empty.
     */
    default List<String> checkActions(CredentialSpec credential) {
        return List.of();
    }
}
