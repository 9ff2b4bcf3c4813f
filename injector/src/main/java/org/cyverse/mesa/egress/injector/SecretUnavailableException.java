package org.cyverse.mesa.egress.injector;

/**
 * A secret could not be fetched. The message is for an operator and never contains a secret
 * value.
 */
public class SecretUnavailableException extends Exception {

    private final boolean revoked;

    public SecretUnavailableException(String message, boolean revoked, Throwable cause) {
        super(message, cause);
        this.revoked = revoked;
    }

    public SecretUnavailableException(String message) {
        this(message, false, null);
    }

    /** The source said the secret was revoked (drop any cached value at once). */
    public boolean revoked() {
        return revoked;
    }
}
