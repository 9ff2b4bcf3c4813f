package org.cyverse.mesa.egress.injector.openbao;

import java.time.Duration;
import java.time.Instant;

/**
 * An OpenBao client token and what OpenBao said about its lifetime. {@link #toString()} is
 * redacted: the token authorizes reading every secret the policy allows.
 */
final class AuthToken {

    private final String value;
    private final Duration granted;
    private final boolean renewable;
    private volatile Instant expiresAt;
    /** Renewal gave back much less than was granted: the max TTL is near, log in again instead. */
    private volatile boolean nearMaxTtl;

    /**
     * @param ttlSeconds the TTL OpenBao granted; 0 means the token does not expire (root, or no TTL)
     */
    AuthToken(String value, long ttlSeconds, boolean renewable, Instant now) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("OpenBao returned no client token");
        }
        this.value = value;
        this.granted = Duration.ofSeconds(ttlSeconds);
        this.renewable = renewable && ttlSeconds > 0;
        this.expiresAt = ttlSeconds > 0 ? now.plusSeconds(ttlSeconds) : null;
    }

    /** The token, for the {@code X-Vault-Token} header only. */
    String value() {
        return value;
    }

    boolean renewable() {
        return renewable;
    }

    /** When it expires, or {@code null} when it does not. */
    Instant expiresAt() {
        return expiresAt;
    }

    boolean expired(Instant now) {
        Instant at = expiresAt;
        return at != null && !now.isBefore(at);
    }

    boolean nearMaxTtl() {
        return nearMaxTtl;
    }

    /** After renew-self: the new TTL counts from now. Less than half the granted TTL means the max TTL caps it. */
    void renewed(long ttlSeconds, Instant now) {
        expiresAt = now.plusSeconds(ttlSeconds);
        if (Duration.ofSeconds(ttlSeconds).multipliedBy(2).compareTo(granted) < 0) {
            nearMaxTtl = true;
        }
    }

    /** When to act next: two thirds of the remaining lifetime, or {@code null} for a token that never expires. */
    Duration untilRefresh(Instant now) {
        Instant at = expiresAt;
        if (at == null) {
            return null;
        }
        Duration left = Duration.between(now, at);
        return left.isNegative() ? Duration.ZERO : left.multipliedBy(2).dividedBy(3);
    }

    @Override
    public String toString() {
        return "AuthToken[redacted, expires " + (expiresAt == null ? "never" : expiresAt) + "]";
    }
}
