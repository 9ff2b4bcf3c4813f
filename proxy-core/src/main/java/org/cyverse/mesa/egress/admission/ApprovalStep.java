package org.cyverse.mesa.egress.admission;

import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.Reason;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.approval.ApprovalBook;
import org.cyverse.mesa.egress.config.MesaConfig;

/**
 * The approval inbox's part of SPEC.md step 3 (A1 profiles with {@code approvals.enabled}): a
 * host the allow-list does not name at all may be allowed by a grant; otherwise its refusal asks
 * for one ({@code approval_required}). Never approvable, keeping their own reasons: deny-list hits,
 * a host the allow-list names but not on this port, method or path, guarded address literals, an
 * egress class that lets nothing leave, and a request that carries a real secret (whose host would
 * otherwise reach the inbox).
 */
final class ApprovalStep {

    private final ApprovalBook book;
    private final boolean enabled;
    private final AddressGuard guard;
    private final LeakRedaction redaction;
    private final String profile;

    ApprovalStep(ApprovalBook book, MesaConfig config, AddressGuard guard, LeakRedaction redaction) {
        EgressClass egress = config.egress();
        this.book = book;
        this.enabled = book != null && config.approvals().enabled() && config.profile().approvable()
                && (egress.anyPublicHost() || !egress.hosts().isEmpty());
        this.guard = guard;
        this.redaction = redaction;
        this.profile = config.profile().name();
    }

    /** Only the allow-list refused: no deny rule matched, and no allow rule names the host. */
    private static boolean hostUnknown(Decision d) {
        return d.outcome() == Decision.Outcome.DENY && d.reason() == Reason.HOST_NOT_ALLOWED && d.rule() == null;
    }

    /** The decision with the inbox's grants applied: a grant's ALLOW (naming the approval) where one covers the target. */
    Decision withGrants(Decision decision, Target target) {
        if (!enabled || !hostUnknown(decision)) {
            return decision;
        }
        Decision granted = book.grant(target);
        return granted == null ? decision : granted;
    }

    /**
     * The refusal for a target the policy (and no grant) allowed: {@code approval_required} when it
     * may be approved, a {@code host_not_allowed} that says why not otherwise (denied lately, inbox
     * full); {@code null} to keep the policy's own refusal.
     */
    Refusal refusal(Decision decision, Destination destination, VerdictDraft draft, RequestFacts facts) {
        if (!enabled || !hostUnknown(decision) || !TargetChecks.literalPermitted(guard, destination) || redaction.carriesSecret(draft, facts)) {
            return null;
        }
        ApprovalBook.Ask ask = book.ask(destination.host(), destination.port());
        if (ask.full()) {
            return Refusals.approvalInboxFull(destination.host(), profile);
        }
        return ask.pending() ? Refusals.approvalRequired(ask.approval(), destination.host(), profile)
                : Refusals.approvalDenied(ask.approval(), destination.host(), profile);
    }
}
