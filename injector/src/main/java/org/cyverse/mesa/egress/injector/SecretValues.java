package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Optional;

/**
 * The credentials' values as the injector reads them: the running proxy's {@link CredentialStore},
 * or, for {@code check}, values assumed present without fetching anything.
 */
public interface SecretValues {

    /** The valid current value, or empty when there is none (not fetched yet, failed, expired, revoked). */
    Optional<Secret> current(String credential);

    /**
     * The valid current value with the parts read with it ({@link SecretLease#parts}), as one snapshot; empty as
     * {@link #current}. The default has no parts.
     */
    default Optional<SecretLease> lease(String credential) {
        return current(credential).map(s -> new SecretLease(s, null, null));
    }

    /** Every value the credential has had, valid or not, its parts' included: what must never reach a client. */
    List<Secret> held(String credential);

    /** Every value the part {@code part} of the credential has had; empty by default. */
    default List<Secret> heldPart(String credential, String part) {
        return List.of();
    }

    /** Changes whenever a credential gets a value it did not have before. */
    long generation();

    /** Why {@code credential} has no value, as its source or issuer said (never a value), or {@code null} when unknown. */
    default String whyUnavailable(String credential) {
        return null;
    }

    /**
     * Values for {@code check}: every credential has one, a stand-in that no request contains, so
     * the decision is the one the proxy makes once every credential has been fetched. Nothing is
     * fetched, so neither {@code secret_leak} nor {@code credential_unavailable} can come of it.
     */
    static SecretValues assumedPresent() {
        return new SecretValues() {
            @Override
            public Optional<Secret> current(String credential) {
                return Optional.of(Secret.of("\u0000mesa-egress-check:" + credential + "\u0000"));
            }

            @Override
            public List<Secret> held(String credential) {
                return List.of();
            }

            @Override
            public long generation() {
                return 0;
            }
        };
    }
}
