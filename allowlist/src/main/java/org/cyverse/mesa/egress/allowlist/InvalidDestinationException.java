package org.cyverse.mesa.egress.allowlist;

/** A destination host that cannot be canonicalized; the message says why, for a person. */
public final class InvalidDestinationException extends Exception {
    public InvalidDestinationException(String message) {
        super(message);
    }
}
