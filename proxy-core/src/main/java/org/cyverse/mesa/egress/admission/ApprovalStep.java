package org.cyverse.mesa.egress.admission;

import java.util.List;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.Rule;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.approval.ApprovalBook;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.OutgoingRequest;

/**
 * The approval inbox's part of SPEC.md step 3 (A1 profiles with {@code approvals.enabled}): a
 * host the allow-list does not name at all may be allowed by a grant; otherwise its refusal asks
 * for one ({@code approval_required}). Never approvable, keeping their own reasons: a host any deny
 * rule names (whatever its ports, methods or paths), a host the allow-list names but not on this
 * port, method or path, a method or path a grant does not give, guarded address literals, an egress
 * class that lets nothing leave, and a request that a credential step would refuse (a real secret,
 * a sentinel out of its scope) or in which {@code dlp} finds something, host name included (it
 * would otherwise reach the inbox).
 */
final class ApprovalStep {

    private final ApprovalBook book;
    private final boolean enabled;
    private final AddressGuard guard;
    private final LeakRedaction redaction;
    private final DlpCheck dlp;
    private final List<Rule> deny;
    private final String profile;

    ApprovalStep(ApprovalBook book, MesaConfig config, AddressGuard guard, LeakRedaction redaction, DlpCheck dlp) {
        EgressClass egress = config.egress();
        this.book = book;
        this.enabled = book != null && config.approvals().enabled() && config.profile().approvable()
                && (egress.anyPublicHost() || !egress.hosts().isEmpty());
        this.guard = guard;
        this.redaction = redaction;
        this.dlp = dlp;
        this.deny = config.policy().denyRules();
        this.profile = config.profile().name();
    }

    /** Only the allow-list refused: no deny rule matched, and no allow rule names the host. */
    private static boolean hostUnknown(Decision d) {
        return d.outcome() == Decision.Outcome.DENY && d.reason() == Decision.Reason.HOST_NOT_ALLOWED && d.rule() == null;
    }

    /**
     * The decision with the inbox's grants applied: a grant's ALLOW (naming the approval) where one
     * covers the target, or its refusal of a method or path it does not give (which is then not
     * approvable either: asking again would open a request for every method).
     */
    Decision withGrants(Decision decision, Target target) {
        if (!enabled || !hostUnknown(decision) || deniedHost(target.destination())) {
            return decision;
        }
        Decision granted = book.grant(target);
        return granted == null ? decision : granted;
    }

    /** Whether any deny rule names the host, on any port, for any method or path. */
    private boolean deniedHost(Destination destination) {
        for (Rule rule : deny) {
            if (rule.host().matches(destination)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The refusal for a target the policy (and no grant) allowed: {@code approval_required} when it
     * may be approved, a {@code host_not_allowed} that says why not otherwise (denied lately, inbox
     * full); {@code null} to keep the policy's own refusal.
     */
    Refusal refusal(Decision decision, Destination destination, VerdictDraft draft, RequestFacts facts) {
        if (!enabled || !hostUnknown(decision) || deniedHost(destination) || !TargetChecks.literalPermitted(guard, destination)) {
            return null;
        }
        OutgoingRequest probe = redaction.probe(draft, facts);
        if (probe == null || redaction.anyStepRefuses(draft.host, probe) || dlp.finds(probe)) {
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
