package org.cyverse.mesa.egress.injector;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A secret as a source returned it, with the values read together with it.
 *
 * @param secret the value
 * @param expiresAt when it stops being valid, or {@code null} when it does not expire by itself
 * @param version the source's version of it (KV v2 version, file digest, ...), for audit and metrics; may be {@code null}
 * @param parts values that belong with this one and are only valid with it, by name: an {@code aws_sigv4} credential's
 *     {@code access_key_id} and {@code session_token} when they are fetched with its secret access key (temporary
 *     credentials: OpenBao's AWS engine issues all three in one read). Each part is a lease of its own (its source's
 *     version, for change checks), without parts.
 */
public record SecretLease(Secret secret, Instant expiresAt, String version, Map<String, SecretLease> parts) {

    /** A lease without parts. */
    public SecretLease(Secret secret, Instant expiresAt, String version) {
        this(secret, expiresAt, version, Map.of());
    }

    public SecretLease {
        parts = parts == null ? Map.of() : Map.copyOf(parts);
    }

    /** The part named {@code name}, if it was read. */
    public Optional<Secret> part(String name) {
        SecretLease p = parts.get(name);
        return p == null ? Optional.empty() : Optional.of(p.secret());
    }

    /** The value and every part's: what a request must never carry and a response never show. */
    public List<Secret> values() {
        if (parts.isEmpty()) {
            return List.of(secret);
        }
        List<Secret> all = new ArrayList<>();
        all.add(secret);
        parts.values().forEach(p -> all.add(p.secret()));
        return all;
    }

    /**
     * This lease with {@code more} parts added; it expires with the first of them, since the values are only valid
     * together.
     */
    public SecretLease with(Map<String, SecretLease> more) {
        if (more.isEmpty()) {
            return this;
        }
        Map<String, SecretLease> all = new LinkedHashMap<>(parts);
        Instant end = expiresAt;
        for (Map.Entry<String, SecretLease> e : more.entrySet()) {
            all.put(e.getKey(), e.getValue());
            Instant partEnd = e.getValue().expiresAt();
            if (partEnd != null && (end == null || partEnd.isBefore(end))) {
                end = partEnd;
            }
        }
        return new SecretLease(secret, end, version, all);
    }
}
