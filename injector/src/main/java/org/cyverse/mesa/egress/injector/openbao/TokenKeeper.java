package org.cyverse.mesa.egress.injector.openbao;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The proxy's OpenBao token through its life: obtained on first use, renewed with
 * {@code renew-self} at two thirds of its TTL, replaced by a new login when it is not renewable
 * or a renewal shows its max TTL is near, retried with jittered back-off when OpenBao does not
 * answer. The renewal runs on this package's own daemon scheduler; {@link #token} runs on the
 * credential store's executor. Neither is ever a Netty event loop.
 *
 * <p>Revocation is a kill switch (CONTEXT.md: revoking stops the job's access). When OpenBao
 * answers 403 with a token that has not expired, {@link #deniedWith} asks
 * {@code lookup-self}: a 403 there too means the token itself was revoked, and the keeper then
 * refuses to log in again for the rest of the process (a token file that now holds another token
 * is the one exception: that is the agent's rotation, not a revocation). A 403 only on the secret
 * means the policy does not allow that path: the value is dropped, the token kept.
 */
final class TokenKeeper implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TokenKeeper.class.getName());
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(30);
    /** A 403 this close to the expiry is taken for the expiry, not a revocation. */
    private static final Duration EXPIRY_SLACK = Duration.ofSeconds(2);

    private final LoginMethod login;
    private final OpenBaoClient client;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final AtomicReference<AuthToken> current = new AtomicReference<>();
    /** Serializes logins and renewals; {@link #token} takes it only when there is no valid token. */
    private final Object lock = new Object();
    private volatile String revokedReason;
    /** Told once when the token itself is found revoked (the kill switch); may be null. */
    private volatile Consumer<String> onRevoked;
    private volatile boolean closed;
    private ScheduledFuture<?> next; // guarded by lock
    private int failures; // guarded by lock

    TokenKeeper(LoginMethod login, OpenBaoClient client, ScheduledExecutorService scheduler, Clock clock) {
        this.login = login;
        this.client = client;
        this.scheduler = scheduler;
        this.clock = clock;
    }

    /** A valid token, logging in first when there is none. Blocks. */
    AuthToken token() throws OpenBaoException {
        String revoked = revokedReason;
        if (revoked != null) {
            throw new OpenBaoException(revoked, 403);
        }
        AuthToken t = usable(current.get());
        if (t != null) {
            return t;
        }
        synchronized (lock) {
            t = usable(current.get());
            if (t != null) {
                return t;
            }
            if (closed) {
                throw new OpenBaoException("the OpenBao source is closed", TokenFiles.LOCAL);
            }
            AuthToken fresh = login.login();
            adopt(fresh, "obtained");
            return fresh;
        }
    }

    /** The current token if it is still valid, without logging in; for revoking leases on close. */
    AuthToken currentOrNull() {
        AuthToken t = current.get();
        return t == null || t.expired(clock.instant()) ? null : t;
    }

    private AuthToken usable(AuthToken t) {
        return t != null && !t.expired(clock.instant()) && login.stillCurrent(t) ? t : null;
    }

    /**
     * OpenBao answered 403 to a call made with {@code t}. Returns whether the token itself was
     * revoked (then nothing from OpenBao is served any more); otherwise the policy refused that one call.
     */
    boolean deniedWith(AuthToken t) {
        Instant now = clock.instant();
        Instant expires = t.expiresAt();
        if (expires != null && now.plus(EXPIRY_SLACK).isAfter(expires)) {
            current.compareAndSet(t, null); // it simply ran out: log in again on next use
            return false;
        }
        try {
            client.lookupSelf(t.value());
            return false;
        } catch (OpenBaoException e) {
            if (!e.denied()) {
                return false; // cannot tell now; the value is dropped anyway and fetched again later
            }
        }
        synchronized (lock) {
            current.compareAndSet(t, null);
            if (!login.stillCurrent(t)) {
                return false; // the token file holds a new token: the agent rotated it
            }
            revokedReason = "the OpenBao token (" + login.describe() + ") was revoked: OpenBao answered 403 to"
                    + " auth/token/lookup-self before the token's expiry. A revocation is the kill switch, so the proxy"
                    + " does not log in again: restart it to resume";
            cancelNext();
        }
        LOG.severe(revokedReason);
        Consumer<String> listener = onRevoked;
        if (listener != null) {
            try {
                listener.accept(revokedReason);
            } catch (RuntimeException e) {
                LOG.warning("the revocation listener failed (" + e.getClass().getName() + ")");
            }
        }
        return true;
    }

    /** Sets who is told when the token is found revoked. */
    void onRevoked(Consumer<String> listener) {
        this.onRevoked = listener;
    }

    /** One step of the lifecycle; runs on the scheduler. */
    private void maintain() {
        synchronized (lock) {
            AuthToken t = current.get();
            if (closed || t == null || revokedReason != null) {
                return;
            }
            Instant now = clock.instant();
            if (t.expired(now)) {
                current.compareAndSet(t, null);
                LOG.warning("OpenBao token (" + login.describe() + ") expired without a successful renewal or login");
                return;
            }
            try {
                if (t.renewable() && !t.nearMaxTtl() && renew(t)) {
                    return;
                }
                if (revokedReason == null && login.canLogInAgain(t)) {
                    adopt(login.login(), t.nearMaxTtl() ? "replaced (max TTL near)" : "replaced (not renewable)");
                    return;
                }
                // Cannot renew and cannot log in again (wrapped, or an unchanged token file):
                // keep it until it expires, then drop it so that fetches fail closed.
                schedule(Duration.between(now, t.expiresAt()));
            } catch (OpenBaoException e) {
                failures++;
                Duration retry = retryDelay(failures);
                Duration left = Duration.between(now, t.expiresAt());
                LOG.warning("OpenBao token (" + login.describe() + ") could not be renewed or replaced: " + e.getMessage()
                        + "; retrying in " + retry.toMillis() + " ms (token valid for " + left.toSeconds() + " s more)");
                schedule(retry.compareTo(left) < 0 ? retry : left);
            }
        }
    }

    /** renew-self; false when OpenBao refused it for good (then log in again, if possible). */
    private boolean renew(AuthToken t) throws OpenBaoException {
        try {
            long ttl = client.renewSelf(t);
            t.renewed(ttl, clock.instant());
            failures = 0;
            LOG.fine(() -> "OpenBao token renewed; valid until " + t.expiresAt());
            schedule(t.untilRefresh(clock.instant()));
            return true;
        } catch (OpenBaoException e) {
            if (e.denied()) {
                if (deniedWith(t)) {
                    return true; // revoked: nothing more to do
                }
                return false;
            }
            if (e.refused()) {
                return false;
            }
            throw e;
        }
    }

    private void adopt(AuthToken fresh, String how) {
        current.set(fresh);
        failures = 0;
        LOG.info(() -> "OpenBao token " + how + " by " + login.describe() + "; valid until "
                + (fresh.expiresAt() == null ? "it is revoked (no TTL)" : fresh.expiresAt())
                + (fresh.renewable() ? ", renewable" : ", not renewable"));
        schedule(fresh.untilRefresh(clock.instant()));
    }

    private void schedule(Duration delay) {
        cancelNext();
        if (delay == null || closed) {
            return;
        }
        try {
            next = scheduler.schedule(this::maintain, Math.max(1, delay.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.fine("OpenBao token scheduler is shut down");
        }
    }

    private void cancelNext() {
        if (next != null) {
            next.cancel(false);
            next = null;
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            cancelNext();
        }
    }

    /** 1 s doubling to 30 s, then a random point in its upper half, so sidecars do not retry in step. */
    static Duration retryDelay(int failures) {
        long full = Math.min(LONGEST_RETRY.toMillis(), FIRST_RETRY.toMillis() << Math.min(failures - 1, 16));
        return Duration.ofMillis(full / 2 + ThreadLocalRandom.current().nextLong(full / 2 + 1));
    }
}
