package org.cyverse.mesa.egress.injector.budget;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The place one admitted request holds in its credentials' budgets. Its body bytes are counted
 * as they flow ({@link #moved}, reported to the budgets every {@value #REPORT_BYTES} bytes, so
 * that requests in flight count against the byte limits of the next admission), and the place
 * is released once, when the exchange ends. Used from the exchange's event loop; releasing twice
 * does nothing.
 */
public final class BudgetTicket implements BudgetOutcome {

    /** A ticket for a request that carries no limited credential. */
    public static final BudgetTicket NONE = new BudgetTicket(null, List.of());

    /** Bytes moved before they are reported: a lock per 16 KiB, not per chunk. */
    static final long REPORT_BYTES = 16 * 1024;

    private final CredentialBudgets owner;
    private final List<Budget> budgets;
    private final AtomicBoolean released = new AtomicBoolean();
    private long unreportedUp;
    private long unreportedDown;

    BudgetTicket(CredentialBudgets owner, List<Budget> budgets) {
        this.owner = owner;
        this.budgets = budgets;
    }

    /** Counts body bytes sent upstream ({@code up}) and relayed to the client ({@code down}). */
    public void moved(long up, long down) {
        if (owner == null || released.get()) {
            return;
        }
        unreportedUp += up;
        unreportedDown += down;
        if (unreportedUp + unreportedDown >= REPORT_BYTES) {
            owner.moved(budgets, unreportedUp, unreportedDown);
            unreportedUp = 0;
            unreportedDown = 0;
        }
    }

    /** Ends the request: its place in {@code concurrent} is freed and the bytes not reported yet are counted. */
    public void release() {
        if (owner != null && released.compareAndSet(false, true)) {
            owner.release(budgets, unreportedUp, unreportedDown);
        }
    }

    /** Whether this ticket holds a place in any budget. */
    public boolean holdsAny() {
        return !budgets.isEmpty();
    }

    @Override
    public String toString() {
        return "BudgetTicket[" + budgets.size() + (released.get() ? " released]" : "]");
    }
}
