package org.cyverse.mesa.egress.injector;

/**
 * A real secret value. {@link #toString()} is redacted, so a secret that ends up in a log line,
 * an exception message or a string concatenation shows as {@code Secret[redacted]}; only
 * {@link #reveal()} gives the value, and only injection calls it.
 */
public final class Secret {

    /** Creates a secret; the value must be non-empty. */
    public static Secret of(String value) {
        throw new UnsupportedOperationException("TODO");
    }

    /** The value, for putting it on the wire. */
    public String reveal() {
        throw new UnsupportedOperationException("TODO");
    }

    /** Equal values are equal secrets (compared in constant time). */
    @Override
    public boolean equals(Object other) {
        throw new UnsupportedOperationException("TODO");
    }

    @Override
    public int hashCode() {
        throw new UnsupportedOperationException("TODO");
    }

    @Override
    public String toString() {
        return "Secret[redacted]";
    }
}
