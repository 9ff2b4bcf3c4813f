package org.cyverse.mesa.egress.injector.budget;

import org.cyverse.mesa.egress.injector.CredentialLimits;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.cyverse.mesa.egress.injector.CredentialSpec;

/**
 * The proxy's own budgets for credentials with {@code limits:} (LiteLLM or not): a request that
 * would carry a credential past one of its limits is not sent, with or without the credential;
 * it is answered 429 {@code credential_budget_exceeded}. One instance per proxy: what was
 * counted survives a config reload, under the reloaded limits. Thread-safe; each call is a few
 * array operations under one lock. A credential that never had limits costs nothing.
 */
public final class CredentialBudgets {

    private final LongSupplier nanoClock;
    private final Map<String, Budget> budgets = new HashMap<>();

    public CredentialBudgets() {
        this(System::nanoTime);
    }

    /** @param nanoClock a monotonic clock in nanoseconds (tests move it by hand) */
    public CredentialBudgets(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /**
     * Takes the limits of {@code credentials}. A credential keeps what was counted for it under
     * its name, even through a config without its limits (or without it): it is then not limited,
     * but still counted, so limits put back later see the requests in flight.
     */
    public synchronized void configure(Collection<CredentialSpec> credentials) {
        Map<String, CredentialLimits> limits = new HashMap<>();
        for (CredentialSpec spec : credentials) {
            limits.put(spec.name(), spec.limits());
        }
        for (Budget budget : budgets.values()) {
            budget.reconfigure(limits.getOrDefault(budget.credential, CredentialLimits.NONE));
        }
        limits.forEach((name, l) -> {
            if (l.any() && !budgets.containsKey(name)) {
                budgets.put(name, new Budget(name, l));
            }
        });
    }

    /**
     * Admits a request that carries {@code credentials}: a ticket holding its place in each one's
     * budget (release it when the request ends), or the first limit that stops it, in which
     * case nothing is counted.
     */
    public synchronized BudgetOutcome admit(Collection<String> credentials) {
        if (budgets.isEmpty()) {
            return BudgetTicket.NONE;
        }
        long now = nanoClock.getAsLong();
        List<Budget> taken = new ArrayList<>(1);
        for (String name : credentials) {
            Budget budget = budgets.get(name);
            if (budget != null && !taken.contains(budget)) {
                BudgetRefusal refusal = budget.check(now);
                if (refusal != null) {
                    return refusal;
                }
                taken.add(budget);
            }
        }
        if (taken.isEmpty()) {
            return BudgetTicket.NONE;
        }
        for (Budget budget : taken) {
            budget.take(now);
        }
        return new BudgetTicket(this, List.copyOf(taken));
    }

    synchronized void moved(List<Budget> held, long bytesUp, long bytesDown) {
        long now = nanoClock.getAsLong();
        for (Budget budget : held) {
            budget.moved(bytesUp, bytesDown, now);
        }
    }

    synchronized void release(List<Budget> held, long bytesUp, long bytesDown) {
        long now = nanoClock.getAsLong();
        for (Budget budget : held) {
            budget.release(bytesUp, bytesDown, now);
        }
    }

    /** Requests carrying {@code credential} in flight now (0 when it has no limits). */
    public synchronized int inFlight(String credential) {
        Budget budget = budgets.get(credential);
        return budget == null ? 0 : budget.inFlight();
    }
}
