package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What {@link CredentialStore} knows about one credential. The fields read on the request path
 * are volatile or atomic, so {@link CredentialStore#current} takes no lock; the rest belongs to the one
 * fetch in flight ({@link #inFlight}) and to {@code synchronized} scheduling.
 */
final class CredentialState {

    final CredentialSpec spec;
    /**
     * The value, or null. Swapped whole; the refresh loop drops an expired one with
     * compare-and-set, so it can never drop a fresh value that a fetch has just put in.
     */
    final AtomicReference<SecretLease> lease = new AtomicReference<>();
    /** Whether a value was ever fetched: readiness. */
    volatile boolean resolvedOnce;
    /** Why the last fetch failed (no secret in it), or null after a success. */
    volatile String lastError;
    /** One fetch at a time per credential. */
    final AtomicBoolean inFlight = new AtomicBoolean();
    /** Consecutive failures, for the back-off; written only by the fetch in flight. */
    volatile int failures;
    /**
     * Every distinct value this credential has had, the parts read with it included, newest last,
     * at most {@link #HELD} leases' worth: an upstream may echo a value that was refreshed away a
     * moment ago, and it must still be scrubbed from responses.
     */
    volatile List<Secret> held = List.of();
    /** The same for each part alone, by part name (a fetched access key id is scrubbed to the sentinel key id). */
    volatile Map<String, List<Secret>> heldParts = Map.of();
    static final int HELD = 8;
    /** The minted values not retired yet (empty for a credential read from a source). */
    final MintedKeys minted = new MintedKeys();
    /** The next planned fetch (refresh ahead of expiry, or retry after a failure). */
    private ScheduledFuture<?> next;

    CredentialState(CredentialSpec spec) {
        this.spec = spec;
    }

    /** Remembers a fetched value and its parts; returns whether any of them was new. */
    synchronized boolean remember(SecretLease lease) {
        List<Secret> values = lease.values();
        boolean fresh = values.stream().anyMatch(v -> !held.contains(v));
        if (!fresh) {
            return false;
        }
        held = kept(held, values, HELD * values.size());
        Map<String, List<Secret>> parts = new LinkedHashMap<>(heldParts);
        lease.parts().forEach((name, part) -> parts.put(name, kept(parts.getOrDefault(name, List.of()), List.of(part.secret()), HELD)));
        heldParts = Map.copyOf(parts);
        return true;
    }

    /** {@code list} with {@code added} appended (those it lacks), the oldest dropped past {@code bound}. */
    private static List<Secret> kept(List<Secret> list, List<Secret> added, int bound) {
        List<Secret> next = new ArrayList<>(list);
        for (Secret s : added) {
            if (!next.contains(s)) {
                next.add(s);
            }
        }
        while (next.size() > bound) {
            next.remove(0);
        }
        return List.copyOf(next);
    }

    synchronized void plan(ScheduledFuture<?> future) {
        if (next != null) {
            next.cancel(false);
        }
        next = future;
    }

    synchronized void cancelPlan() {
        plan(null);
    }
}
