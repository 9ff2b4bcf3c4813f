package org.cyverse.mesa.egress.injector.openbao;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * The leases the proxy holds: the current one of each leased secret (renewed instead of read
 * again, so a refresh does not mint new credentials each time), superseded ones until they
 * expire (revoked on close with the rest), and the references whose lease an operator revoked
 * (never read again in this process: revoking the lease is the kill switch).
 */
final class LeaseBook {

    /** One lease and the secret it carries. */
    static final class Held {
        final SecretRef ref;
        final SecretAnswer answer;
        /** The token that read it: the lease dies with that token, so it is renewed only while that token is current. */
        final AuthToken session;
        volatile Instant expiresAt;

        Held(SecretRef ref, SecretAnswer answer, AuthToken session, Instant expiresAt) {
            this.ref = ref;
            this.answer = answer;
            this.session = session;
            this.expiresAt = expiresAt;
        }

        String leaseId() {
            return answer.leaseId();
        }

        boolean expired(Instant now) {
            return !now.isBefore(expiresAt);
        }
    }

    private final Map<SecretRef, Held> current = new ConcurrentHashMap<>();
    private final Map<String, Held> unrevoked = new ConcurrentHashMap<>();
    private final Map<SecretRef, String> revoked = new ConcurrentHashMap<>();

    Held current(SecretRef ref) {
        return current.get(ref);
    }

    Held hold(SecretRef ref, SecretAnswer answer, AuthToken session, Instant expiresAt) {
        Held held = new Held(ref, answer, session, expiresAt);
        Held previous = current.put(ref, held);
        unrevoked.put(held.leaseId(), held);
        if (previous != null && previous.expired(Instant.now())) {
            unrevoked.remove(previous.leaseId());
        }
        return held;
    }

    /** No longer renewed; still revoked on close while it has not expired. */
    void supersede(Held held) {
        current.remove(held.ref, held);
    }

    /** An operator revoked the lease behind {@code ref}: forget it, and refuse {@code ref} from now on. */
    void revoked(Held held, String reason) {
        current.remove(held.ref, held);
        unrevoked.remove(held.leaseId());
        revoked.put(held.ref, reason);
    }

    /** Why {@code ref} is refused for good, or {@code null}. */
    String revokedReason(SecretRef ref) {
        return revoked.get(ref);
    }

    /** Leases to revoke on close: every one held that has not expired. */
    List<Held> unexpired(Instant now) {
        return unrevoked.values().stream().filter(h -> !h.expired(now)).collect(Collectors.toList());
    }

    /** The lease's path without its unique last part, for log lines. */
    static String pathOf(String leaseId) {
        int slash = leaseId.lastIndexOf('/');
        return slash <= 0 ? "(lease)" : leaseId.substring(0, slash) + "/...";
    }
}
