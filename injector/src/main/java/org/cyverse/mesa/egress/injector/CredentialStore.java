package org.cyverse.mesa.egress.injector;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.injector.Minter;

/**
 * The current secret of every configured credential, fetched once at start and kept fresh in
 * the background: refreshed ahead of expiry, re-read when a source says its value changed.
 * {@link #current} never blocks and never calls a source. A credential whose value could not be
 * fetched, or whose value expired, has none: requests that need it are refused
 * ({@code credential_unavailable}), never forwarded without it.
 *
 * <p>Timing: a value that expires is fetched again when two thirds of its remaining lifetime have
 * passed; a failed fetch is retried after 1 s, doubling up to 60 s, with jitter (so many sidecars
 * do not hit the broker in step); every second the loop asks each source whether its value
 * changed (a rewritten file) and drops values that expired. A failed refresh keeps a value that
 * is still valid; a source that says {@linkplain SecretUnavailableException#revoked() revoked}
 * drops it at once, so a kill switch takes effect on the next request. While a fetch is backing
 * off, change notices wait for the retry.
 *
 * <p>A fetched value holding a control character is refused: put into a header, a line break
 * would let the secret's owner (or whoever wrote the file) split the request.
 */
public final class CredentialStore implements SecretValues, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(CredentialStore.class.getName());
    private static final Duration TICK = Duration.ofSeconds(1);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(60);

    /** How long a minted value replaced by a fresh one stays usable at its issuer before it is retired. */
    public static final Duration REPLACED_VALUE_GRACE = Duration.ofSeconds(30);

    /** Told about each fetch: credential name and outcome ({@code success}, {@code failure}, {@code revoked}). */
    public interface Listener {
        void refreshed(String credential, String outcome);

        /**
         * Told about each call to a minter: {@code success} or {@code failure} (minting), {@code retired}
         * or {@code retire_failure} (taking a key back).
         */
        default void minted(String credential, String outcome) {}
    }

    private final Map<String, CredentialState> states;
    private final Map<String, SecretSource> sources;
    private final Map<String, Minter> minters;
    private final Retirements retirements;
    private final ScheduledExecutorService executor;
    private final Listener listener;
    private final Clock clock = Clock.systemUTC();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean closed;
    /** Counts new values, so that users of {@link #held} can cache what they derive from it. */
    private final AtomicLong generation = new AtomicLong();
    private volatile ScheduledFuture<?> ticker;

    /**
     * @param credentials the configured credentials
     * @param sources one source per scheme
     * @param executor where fetches run (never a Netty event loop)
     * @param listener told about each fetch (metrics)
     */
    public CredentialStore(List<CredentialSpec> credentials, Map<String, SecretSource> sources,
            ScheduledExecutorService executor, Listener listener) {
        this(credentials, sources, Map.of(), executor, listener);
    }

    /**
     * @param minters the minter of each minted credential, by credential name
     */
    public CredentialStore(List<CredentialSpec> credentials, Map<String, SecretSource> sources, Map<String, Minter> minters,
            ScheduledExecutorService executor, Listener listener) {
        Map<String, CredentialState> byName = new LinkedHashMap<>();
        for (CredentialSpec spec : credentials) {
            if (byName.put(spec.name(), new CredentialState(spec)) != null) {
                throw new IllegalArgumentException("two credentials are named " + spec.name());
            }
        }
        // Never modified after construction: safe to read from any thread without a lock.
        this.states = Collections.unmodifiableMap(byName);
        this.sources = Map.copyOf(sources);
        this.minters = Map.copyOf(minters);
        for (CredentialSpec spec : credentials) {
            if (spec.minted() && !this.minters.containsKey(spec.name())) {
                throw new IllegalArgumentException("credential " + spec.name() + " is minted, but no minter was given for it");
            }
        }
        this.executor = executor;
        this.listener = listener;
        this.retirements = new Retirements(this.minters, executor, this::tellMinted);
    }

    /** Starts the first fetch of every credential and the refresh loop. Returns at once. */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the credential store was already started");
        }
        for (CredentialState state : states.values()) {
            submit(state);
        }
        ticker = executor.scheduleWithFixedDelay(this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The valid current value, or empty when there is none (not fetched yet, failed, expired, revoked). */
    @Override
    public Optional<Secret> current(String credential) {
        return lease(credential).map(SecretLease::secret);
    }

    /** The valid current value with the parts read with it, as one snapshot; empty as {@link #current}. */
    @Override
    public Optional<SecretLease> lease(String credential) {
        CredentialState state = states.get(credential);
        SecretLease lease = state == null ? null : state.lease.get();
        if (lease == null || expired(lease, clock.instant())) {
            // Checked here too, not only by the loop: an expired key must not go out even for the
            // second until the loop drops it.
            return Optional.empty();
        }
        return Optional.of(lease);
    }

    /**
     * Every value the credential has had (newest last, a few at most), valid or not: what must
     * never reach a client.
     */
    @Override
    public List<Secret> held(String credential) {
        CredentialState state = states.get(credential);
        return state == null ? List.of() : state.held;
    }

    /** Every value the part {@code part} of the credential has had (newest last, a few at most). */
    @Override
    public List<Secret> heldPart(String credential, String part) {
        CredentialState state = states.get(credential);
        return state == null ? List.of() : state.heldParts.getOrDefault(part, List.of());
    }

    /** Why the last fetch of {@code credential} failed (an operator's message, never a value), or {@code null}. */
    @Override
    public String whyUnavailable(String credential) {
        CredentialState state = states.get(credential);
        return state == null ? null : state.lastError;
    }

    /** Changes whenever a credential gets a value it did not have before. */
    @Override
    public long generation() {
        return generation.get();
    }

    /** Waits at most {@code wait} until every credential has been resolved once ({@link #notReadyReason} is {@code null}). */
    public void awaitResolved(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (notReadyReason() != null && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** {@code null} once every credential has been resolved once; otherwise which are missing and why. */
    public String notReadyReason() {
        List<String> missing = new ArrayList<>();
        for (CredentialState state : states.values()) {
            if (!state.resolvedOnce) {
                String why = state.lastError;
                missing.add("credential " + state.spec.name() + " not resolved yet: " + (why == null ? "first fetch pending" : why));
            }
        }
        return missing.isEmpty() ? null : String.join("; ", missing);
    }

    /**
     * The kill switch: every value dropped at once (requests that need one are refused from now
     * on), refreshing stopped for good, and every minted value retired at its issuer, within
     * {@code budget} (blocking). Returns how many minted values could not be retired.
     */
    public int kill(Duration budget) {
        close();
        for (CredentialState state : states.values()) {
            state.lease.set(null);
        }
        return stop(budget);
    }

    /**
     * At the proxy's stop (and the kill switch): every minted value retired ({@link #retireAll}),
     * then each minter takes back what outlives its values (an OAuth refresh token, when the
     * operator asked). Not at a reload: the next store goes on with them. Blocks; returns how many
     * minted values could not be retired.
     */
    public int stop(Duration budget) {
        int left = retire(budget, true);
        retirements.end();
        return left;
    }

    /**
     * Retires the minted values of a store a reload replaced (a value still in use stops working),
     * retrying within {@code budget}; values whose minter does not
     * {@linkplain Minter#retiresReplaced retire replaced values} are left to run out. Blocks.
     * Returns how many could not be retired.
     */
    public int retireAll(Duration budget) {
        return retire(budget, false);
    }

    private int retire(Duration budget, boolean ending) {
        Map<String, MintedKeys> minted = new LinkedHashMap<>();
        states.values().stream().filter(s -> s.spec.minted()).forEach(s -> minted.put(s.spec.name(), s.minted));
        return retirements.all(minted, budget, ending);
    }

    /** Stops refreshing. Values already fetched stay usable until they expire. */
    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> t = ticker;
        if (t != null) {
            t.cancel(false);
        }
        states.values().forEach(CredentialState::cancelPlan);
    }

    private void submit(CredentialState state) {
        try {
            executor.execute(() -> fetch(state));
        } catch (RejectedExecutionException e) {
            LOG.warning("credential " + state.spec.name() + ": cannot fetch, the executor is shut down");
        }
    }

    private void plan(CredentialState state, Duration delay) {
        if (closed) {
            return;
        }
        try {
            state.plan(executor.schedule(() -> fetch(state), Math.max(1, delay.toMillis()), TimeUnit.MILLISECONDS));
        } catch (RejectedExecutionException e) {
            LOG.warning("credential " + state.spec.name() + ": cannot plan a refresh, the executor is shut down");
        }
    }

    /** One fetch; runs on the executor. */
    private void fetch(CredentialState state) {
        if (closed || !state.inFlight.compareAndSet(false, true)) {
            return; // a fetch in flight plans the next one itself
        }
        String name = state.spec.name();
        try {
            SecretLease lease = obtain(state);
            if (closed && state.spec.minted()) {
                // Stopped or killed while minting: the value is never used; a later stop retires it.
                state.minted.minted(lease);
                return;
            }
            SecretLease replaced = state.spec.minted() ? state.minted.minted(lease) : null;
            state.lease.set(lease);
            if (replaced != null) {
                retirements.later(state.spec.name(), state.minted, replaced);
            }
            if (state.remember(lease)) {
                generation.incrementAndGet();
            }
            boolean recovered = state.failures > 0;
            state.failures = 0;
            state.lastError = null;
            state.resolvedOnce = true;
            if (recovered) {
                LOG.info("credential " + name + ": fetched again after failures");
            }
            tell(name, "success");
            if (state.spec.minted()) {
                tellMinted(name, "success");
            }
            if (lease.expiresAt() != null) {
                plan(state, Duration.between(clock.instant(), lease.expiresAt()).multipliedBy(2).dividedBy(3));
            }
        } catch (SecretUnavailableException e) {
            if (e.revoked()) {
                state.lease.set(null);
            }
            state.lastError = e.getMessage();
            int failures = state.failures + 1;
            state.failures = failures;
            Duration retry = retryDelay(failures);
            LOG.warning("credential " + name + ": " + (e.revoked() ? "revoked, value dropped: " : "fetch failed: ")
                    + e.getMessage() + (state.lease.get() != null ? " (the cached value is still valid)" : "")
                    + "; retrying in " + retry.toMillis() + " ms");
            tell(name, e.revoked() ? "revoked" : "failure");
            if (state.spec.minted()) {
                tellMinted(name, e.revoked() ? "revoked" : "failure");
            }
            plan(state, retry);
        } finally {
            state.inFlight.set(false);
        }
    }

    /** Asks the source, and checks what it returned; every message names the credential's reference, never a value. */
    private SecretLease obtain(CredentialState state) throws SecretUnavailableException {
        CredentialSpec spec = state.spec;
        String ref = spec.minted() ? "the minted value of " + spec.name() : spec.secret().toString();
        SecretLease lease;
        try {
            lease = spec.minted() ? minters.get(spec.name()).mint(state.minted.latest())
                    : SecretSources.fetch(sources, spec.secret(), spec.parts());
        } catch (RuntimeException e) {
            // A bug in a source; its message is unknown text, so only its type is reported.
            throw new SecretUnavailableException("fetching " + ref + " failed unexpectedly (" + e.getClass().getName() + ")");
        }
        if (lease == null || lease.secret() == null) {
            throw new SecretUnavailableException("no value was returned for " + ref);
        }
        if (expired(lease, clock.instant())) {
            throw new SecretUnavailableException("the value of " + ref + " had already expired when it was fetched");
        }
        if (!lease.parts().keySet().containsAll(spec.parts().keySet())) {
            throw new SecretUnavailableException("the values read with " + ref + " lack " + spec.parts().keySet());
        }
        if (lease.secret().reveal().chars().anyMatch(CredentialStore::control)) {
            throw new SecretUnavailableException("the value of " + ref
                    + " holds a control character or line break (it would split a header); refused");
        }
        for (Map.Entry<String, SecretLease> part : lease.parts().entrySet()) {
            if (part.getValue().secret().reveal().chars().anyMatch(CredentialStore::control)) {
                throw new SecretUnavailableException("the " + part.getKey() + " read with " + ref + " (" + spec.parts().get(part.getKey())
                        + ") holds a control character or line break (it would split a header); refused");
            }
        }
        return lease;
    }

    /** Every second: drop expired values, refetch what a source says changed. */
    private void tick() {
        Instant now = clock.instant();
        for (CredentialState state : states.values()) {
            try {
                SecretLease lease = state.lease.get();
                if (lease == null) {
                    continue;
                }
                if (expired(lease, now)) {
                    if (state.spec.minted()) {
                        state.minted.retired(lease); // expired at its issuer too: nothing left to take back
                    }
                    if (state.lease.compareAndSet(lease, null)) {
                        LOG.warning("credential " + state.spec.name() + ": value expired at " + lease.expiresAt()
                                + " without a successful refresh; requests that need it are refused");
                    }
                    continue;
                }
                if (state.failures == 0 && !state.inFlight.get() && !state.spec.minted() && changed(state.spec, lease)) {
                    submit(state);
                }
            } catch (RuntimeException e) {
                // A throwing task would end scheduleWithFixedDelay for good: never let one escape.
                LOG.log(Level.WARNING, "credential " + state.spec.name() + ": change check failed (" + e.getClass().getName() + ")");
            }
        }
    }

    /** Whether a source says the value, or a part read with it, may have changed since {@code lease}. */
    private boolean changed(CredentialSpec spec, SecretLease lease) {
        SecretSource source = sources.get(spec.secret().scheme());
        if (source != null && source.changed(spec.secret(), lease)) {
            return true;
        }
        for (Map.Entry<String, SecretRef> part : spec.parts().entrySet()) {
            SecretSource partSource = sources.get(part.getValue().scheme());
            SecretLease read = lease.parts().get(part.getKey());
            if (partSource != null && read != null && partSource.changed(part.getValue(), read)) {
                return true;
            }
        }
        return false;
    }

    private void tellMinted(String credential, String outcome) {
        try {
            listener.minted(credential, outcome);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "credential listener failed", e);
        }
    }

    private void tell(String credential, String outcome) {
        try {
            listener.refreshed(credential, outcome);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "credential listener failed", e);
        }
    }

    private static boolean control(int c) {
        return c < 0x20 || c == 0x7f;
    }

    private static boolean expired(SecretLease lease, Instant now) {
        return lease.expiresAt() != null && !now.isBefore(lease.expiresAt());
    }

    /** 1 s doubling to 60 s, then a random point in its upper half ("equal jitter"). */
    static Duration retryDelay(int failures) {
        long full = Math.min(LONGEST_RETRY.toMillis(), FIRST_RETRY.toMillis() << Math.min(failures - 1, 16));
        return Duration.ofMillis(full / 2 + ThreadLocalRandom.current().nextLong(full / 2 + 1));
    }
}
