package org.cyverse.mesa.egress.injector;

import java.util.LinkedHashMap;
import java.util.Map;

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
     * Fetches {@code ref} and the values {@code parts} name (references of this source's scheme), as
     * {@link SecretLease#parts}. The default reads each on its own; a source whose every read may
     * return new values (OpenBao's AWS engine issues a new key pair per read) reads them together
     * when they share a location.
     */
    default SecretLease fetch(SecretRef ref, Map<String, SecretRef> parts) throws SecretUnavailableException {
        SecretLease main = fetch(ref);
        Map<String, SecretLease> read = new LinkedHashMap<>();
        for (Map.Entry<String, SecretRef> p : parts.entrySet()) {
            read.put(p.getKey(), fetch(p.getValue()));
        }
        return main.with(read);
    }

    /**
     * Whether the value behind {@code ref} may have changed since {@code lease} was fetched
     * (e.g. the file was rewritten); cheap, called by the store's refresh loop.
     */
    default boolean changed(SecretRef ref, SecretLease lease) {
        return false;
    }
}
