package org.cyverse.mesa.egress.injector;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;

/**
 * A real secret value. {@link #toString()} is redacted, so a secret that ends up in a log line,
 * an exception message or a string concatenation shows as {@code Secret[redacted]}; only
 * {@link #reveal()} gives the value, and only injection calls it.
 *
 * <p>{@link #equals} compares in constant time (for values of one length), so comparing a
 * client-supplied value against a secret does not tell an attacker how many leading bytes were
 * right; {@link #hashCode} is a keyed hash, so it gives nothing away about the value either.
 */
public final class Secret {

    private final String value;
    private final int hash;

    private Secret(String value) {
        this.value = value;
        this.hash = KeyedDigest.hash32(value.getBytes(StandardCharsets.UTF_8));
    }

    /** Creates a secret; the value must be non-empty. */
    public static Secret of(String value) {
        Objects.requireNonNull(value, "secret value");
        if (value.isEmpty()) {
            throw new IllegalArgumentException("a secret value must not be empty");
        }
        return new Secret(value);
    }

    /** The value, for putting it on the wire. */
    public String reveal() {
        return value;
    }

    /** Equal values are equal secrets (compared in constant time). */
    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof Secret)) {
            return false;
        }
        return MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8),
                ((Secret) other).value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "Secret[redacted]";
    }
}
