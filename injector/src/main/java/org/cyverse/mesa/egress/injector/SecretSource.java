package org.cyverse.mesa.egress.injector;

/**
 * Where secrets of one scheme come from ({@code file}, {@code env}, {@code openbao}). Calls may
 * block; the {@link CredentialStore} makes them off the proxy's event loops.
 */
public interface SecretSource {

    /** The scheme this source serves, e.g. {@code "file"}. */
    String scheme();

    /** Fetches the secret {@code ref} names. */
    SecretLease fetch(SecretRef ref) throws SecretUnavailableException;

    /**
     * Whether the value behind {@code ref} may have changed since {@code lease} was fetched
     * (e.g. the file was rewritten); cheap, called by the store's refresh loop.
     */
    default boolean changed(SecretRef ref, SecretLease lease) {
        return false;
    }
}
