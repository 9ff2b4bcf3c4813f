package org.cyverse.mesa.egress.injector;

import java.time.Instant;

/**
 * A secret as a source returned it.
 *
 * @param secret the value
 * @param expiresAt when it stops being valid, or {@code null} when it does not expire by itself
 * @param version the source's version of it (KV v2 version, file digest, ...), for audit and metrics; may be {@code null}
 */
public record SecretLease(Secret secret, Instant expiresAt, String version) {}
