package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.List;
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
     * Every distinct value this credential has had, newest last, at most {@link #HELD}: an
     * upstream may echo a value that was refreshed away a moment ago, and it must still be
     * scrubbed from responses.
     */
    volatile List<Secret> held = List.of();
    static final int HELD = 8;
    /** The minted values not retired yet (empty for a credential read from a source). */
    final org.cyverse.mesa.egress.injector.mint.MintedKeys minted = new org.cyverse.mesa.egress.injector.mint.MintedKeys();
    /** The next planned fetch (refresh ahead of expiry, or retry after a failure). */
    private ScheduledFuture<?> next;

    CredentialState(CredentialSpec spec) {
        this.spec = spec;
    }

    /** Remembers a fetched value; returns whether it was new. */
    synchronized boolean remember(Secret secret) {
        if (held.contains(secret)) {
            return false;
        }
        List<Secret> next = new ArrayList<>(held);
        next.add(secret);
        while (next.size() > HELD) {
            next.remove(0);
        }
        held = List.copyOf(next);
        return true;
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
