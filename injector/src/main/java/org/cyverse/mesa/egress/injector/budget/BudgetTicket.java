package org.cyverse.mesa.egress.injector.budget;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The place one admitted request holds in its credentials' budgets: released once, when the
 * exchange ends, with the body bytes it moved. Thread-safe; releasing twice does nothing.
 */
public final class BudgetTicket implements BudgetOutcome {

    /** A ticket for a request that carries no limited credential. */
    public static final BudgetTicket NONE = new BudgetTicket(null, List.of());

    private final CredentialBudgets owner;
    private final List<Budget> budgets;
    private final AtomicBoolean released = new AtomicBoolean();

    BudgetTicket(CredentialBudgets owner, List<Budget> budgets) {
        this.owner = owner;
        this.budgets = budgets;
    }

    /**
     * Ends the request: its place in {@code concurrent} is freed and its bytes are counted.
     *
     * @param bytesUp request body bytes sent upstream
     * @param bytesDown response body bytes relayed to the client
     */
    public void release(long bytesUp, long bytesDown) {
        if (owner != null && released.compareAndSet(false, true)) {
            owner.release(budgets, bytesUp, bytesDown);
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
