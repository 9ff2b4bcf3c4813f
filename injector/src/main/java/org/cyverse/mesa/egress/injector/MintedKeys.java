package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.List;
import org.cyverse.mesa.egress.injector.SecretLease;

/**
 * The values one minted credential has been given that were not taken back yet, newest last.
 * Thread-safe. What {@link #outstanding} returns is what a stop or a kill must retire.
 */
public final class MintedKeys {

    private final List<SecretLease> outstanding = new ArrayList<>();
    private SecretLease latest;

    /** Records a new value; returns the one it replaces (still outstanding), or {@code null}. */
    public synchronized SecretLease minted(SecretLease lease) {
        SecretLease previous = latest;
        latest = lease;
        outstanding.add(lease);
        return previous;
    }

    /** The newest value minted, valid or not, or {@code null}. */
    public synchronized SecretLease latest() {
        return latest;
    }

    /** Forgets a value that was retired (or that expired: nothing left to take back). */
    public synchronized void retired(SecretLease lease) {
        outstanding.remove(lease);
    }

    /** Every value not retired yet, oldest first. */
    public synchronized List<SecretLease> outstanding() {
        return List.copyOf(outstanding);
    }
}
