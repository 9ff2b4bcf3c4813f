package org.cyverse.mesa.egress.admission;

import java.util.List;
import org.cyverse.mesa.egress.admission.Verdict.Disposition;
import org.cyverse.mesa.egress.admission.Verdict.Mode;
import org.cyverse.mesa.egress.admission.Verdict.Outgoing;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.RequestUse;
import org.cyverse.mesa.egress.injector.budget.BudgetTicket;

/**
 * A {@link Verdict} while {@link Admission#decide} makes it: filled in step by step within one
 * call, then frozen once into the immutable verdict. Never leaves the admission.
 *
 * <p>The one place a refusal is carried out: every refusal the admission reaches comes here, and
 * the {@link EnforcementPolicy} says whether it is the answer or only reported. A refusal after
 * which the admission cannot go on (a target it cannot read, the kill switch, the address guard, a
 * credential step, ...) comes through {@link #refuse(Refusal)} or {@link #unreadable}: its reasons
 * are never reportable ({@link EnforcementPolicy#reportable}). One the policy may report (the
 * allow-list's, SPEC.md step 3) comes through {@link #refuseUnlessReported}, and when reported the
 * admission goes on; should a later step refuse for good, that refusal is the answer and the
 * reported one is dropped, else the verdict is {@link Disposition#REPORTED}.
 */
final class VerdictDraft {

    Mode mode;
    final String method;
    String scheme;
    String host;
    Integer port;
    String path;
    /** The origin-form target, query included: never in the verdict, only looked at for leaks. */
    String pathAndQuery;
    Destination destination;
    Decision policy;
    String credential;
    Injection.Outcome injection;
    List<Injection.Applied> applied = List.of();
    String place;
    String dlp;
    BudgetTicket budget = BudgetTicket.NONE;
    /** What each credential kind made of the request, in step order (appended to by {@link CredentialPass}). */
    List<RequestUse> uses = List.of();
    private final EnforcementPolicy enforcement;
    /** The first refusal the policy only reports, or {@code null}: SPEC.md's order names the first step's reason. */
    private Refusal reported;

    VerdictDraft(Mode mode, String method, EnforcementPolicy enforcement) {
        this.mode = mode;
        this.method = method;
        this.enforcement = enforcement;
    }

    void at(Destination d) {
        destination = d;
        host = d.host();
        port = d.port();
    }

    /** The request goes on: allowed, or reported when a refusal on the way was only reported. */
    Verdict allow(Outgoing outgoing) {
        return reported == null ? freeze(outgoing, null, Disposition.ALLOWED, false)
                : freeze(outgoing, reported, Disposition.REPORTED, false);
    }

    /** A refusal the admission cannot go past: enforced. */
    Verdict refuse(Refusal refusal) {
        return refuse(refusal, false);
    }

    /** A refusal of a target the proxy could not parse, after which the connection's input cannot be trusted: enforced. */
    Verdict unreadable(Refusal refusal) {
        return refuse(refusal, true);
    }

    /**
     * A refusal the admission cannot go past: enforced, since its reason is never reportable.
     *
     * @throws IllegalStateException when the policy would report it: a reason made reportable must
     *     be refused through {@link #refuseUnlessReported}, where the admission can go on
     */
    private Verdict refuse(Refusal refusal, boolean unreadable) {
        if (enforcement.of(refusal) != Enforcement.ENFORCE) {
            throw new IllegalStateException(refusal.reason().code() + " is reportable, but refused where the admission cannot go on");
        }
        return freeze(null, refusal, Disposition.REFUSED, unreadable);
    }

    /**
     * A refusal the enforcement policy may only report: the refused verdict when it is enforced;
     * {@code null} when it is reported, and the caller goes on as if the request were allowed.
     */
    Verdict refuseUnlessReported(Refusal refusal) {
        if (enforcement.of(refusal) == Enforcement.ENFORCE) {
            return freeze(null, refusal, Disposition.REFUSED, false);
        }
        reported = reported == null ? refusal : reported;
        return null;
    }

    /**
     * {@code refused} again with {@code scrubbed} as its refusal (the same, its text rid of secret
     * values): enforced, as it was when first refused; the policy is not asked twice.
     */
    Verdict rewritten(Verdict refused, Refusal scrubbed) {
        if (refused.allowed() || scrubbed.reason() != refused.reason()) {
            throw new IllegalArgumentException("not a rewrite of a refusal: " + refused.reason().code() + " as " + scrubbed.reason().code());
        }
        return freeze(null, scrubbed, Disposition.REFUSED, refused.unreadable());
    }

    private Verdict freeze(Outgoing outgoing, Refusal refusal, Disposition disposition, boolean unreadable) {
        String audited = host != null ? host : refusal == null ? null : refusal.host();
        return new Verdict(mode, method, scheme, audited, port, path, destination, policy, credential, injection, applied,
                outgoing, refusal, disposition, unreadable, place, dlp, disposition == Disposition.REFUSED ? BudgetTicket.NONE : budget,
                uses);
    }
}
