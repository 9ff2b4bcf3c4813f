package org.cyverse.mesa.egress.injector;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.injector.MintedKeys;
import org.cyverse.mesa.egress.injector.Minter;
import org.cyverse.mesa.egress.injector.SecretLease;

/**
 * Takes minted values back at their issuer: a value replaced by a fresh one after
 * {@link #GRACE} (a request that took it a moment ago is still on its way), and every value left
 * on stop and on the kill switch, retried within a time budget. Every attempt is counted and a
 * failure logged with the value's alias, never the value.
 */
final class Retirements {

    private static final Logger LOG = Logger.getLogger(Retirements.class.getName());
    /** How long a replaced value stays usable at its issuer. */
    static final Duration GRACE = CredentialStore.REPLACED_VALUE_GRACE;

    private final Map<String, Minter> minters;
    private final ScheduledExecutorService executor;
    private final BiConsumer<String, String> outcomes;

    Retirements(Map<String, Minter> minters, ScheduledExecutorService executor, BiConsumer<String, String> outcomes) {
        this.minters = minters;
        this.executor = executor;
        this.outcomes = outcomes;
    }

    /** Retires {@code lease} after {@link #GRACE}; on stop, whatever is still outstanding goes with the rest. */
    void later(String credential, MintedKeys keys, SecretLease lease) {
        if (!minters.get(credential).retiresReplaced()) {
            keys.retired(lease);
            return;
        }
        try {
            executor.schedule(() -> once(credential, keys, lease), GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.warning("credential " + credential + ": cannot plan retiring " + minters.get(credential).describe(lease)
                    + " (the executor is shut down); it stays valid at its issuer until it expires");
        }
    }

    /**
     * Retires every outstanding value of {@code all} (by credential name), trying again with a
     * short back-off until {@code budget} is spent; unless {@code ending} (stop, kill), only those
     * whose minter {@linkplain Minter#retiresReplaced retires replaced values}. Blocks. Returns how
     * many are left.
     */
    int all(Map<String, MintedKeys> all, Duration budget, boolean ending) {
        if (!ending) {
            all.forEach((credential, keys) -> {
                if (!minters.get(credential).retiresReplaced()) {
                    keys.outstanding().forEach(keys::retired); // left to run out: see Minter#retiresReplaced
                }
            });
        }
        long deadline = System.nanoTime() + budget.toNanos();
        long pause = 100;
        while (true) {
            int left = 0;
            for (Map.Entry<String, MintedKeys> entry : all.entrySet()) {
                for (SecretLease lease : entry.getValue().outstanding()) {
                    if (!once(entry.getKey(), entry.getValue(), lease)) {
                        left++;
                    }
                }
            }
            if (left == 0 || System.nanoTime() + pause * 1_000_000 > deadline) {
                if (left > 0) {
                    LOG.warning(left + " minted value(s) could not be retired within " + budget.toMillis()
                            + " ms; they stay valid at their issuer until they expire");
                }
                return left;
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return left;
            }
            pause = Math.min(pause * 2, 2000);
        }
    }

    /** At stop and kill: each minter takes back what outlives its values ({@link Minter#end}), once. Blocks. */
    void end() {
        minters.forEach((credential, minter) -> {
            try {
                minter.end();
            } catch (SecretUnavailableException | RuntimeException e) {
                outcomes.accept(credential, "retire_failure");
                LOG.warning("credential " + credential + ": taking back what outlives its values failed: "
                        + (e instanceof SecretUnavailableException ? e.getMessage() : e.getClass().getName()));
            }
        });
    }

    /** One attempt; whether {@code lease} is retired now. */
    private boolean once(String credential, MintedKeys keys, SecretLease lease) {
        Minter minter = minters.get(credential);
        if (!keys.outstanding().contains(lease)) {
            return true; // retired meanwhile
        }
        if (!minter.retires()) {
            keys.retired(lease); // nothing to take back at this issuer: forgotten, not counted as retired
            return true;
        }
        try {
            minter.retire(lease);
            keys.retired(lease);
            outcomes.accept(credential, "retired");
            LOG.info("credential " + credential + ": " + minter.describe(lease) + " retired at its issuer");
            return true;
        } catch (SecretUnavailableException | RuntimeException e) {
            outcomes.accept(credential, "retire_failure");
            LOG.warning("credential " + credential + ": retiring " + minter.describe(lease) + " failed: "
                    + (e instanceof SecretUnavailableException ? e.getMessage() : e.getClass().getName()));
            return false;
        }
    }
}
