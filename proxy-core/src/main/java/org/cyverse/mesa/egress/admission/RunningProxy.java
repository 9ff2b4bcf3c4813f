package org.cyverse.mesa.egress.admission;

import java.util.function.BooleanSupplier;
import org.cyverse.mesa.egress.approval.ApprovalBook;
import org.cyverse.mesa.egress.injector.budget.CredentialBudgets;

/**
 * What the running proxy decides with beyond its config, shared by every snapshot (a reload
 * keeps them): the kill switch, the credential budgets, the approval inbox.
 *
 * @param killed whether the kill switch was pulled: then every request and CONNECT is refused
 *     ({@code egress_killed}) once its target is read, whatever the policy says
 * @param budgets the credential budgets ({@code limits:}), consulted last, once everything else
 *     allowed the request; {@code null} for none
 * @param approvals the approval inbox (grants, and requests refused only for their host), or
 *     {@code null} for none
 */
public record RunningProxy(BooleanSupplier killed, CredentialBudgets budgets, ApprovalBook approvals) {

    /** No kill switch, budgets or inbox: as {@code check} decides (a dry run counts and asks nothing). */
    public static final RunningProxy NONE = new RunningProxy(() -> false, null, null);
}
