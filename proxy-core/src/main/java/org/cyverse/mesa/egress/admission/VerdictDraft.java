package org.cyverse.mesa.egress.admission;

import java.util.List;
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

    VerdictDraft(Mode mode, String method) {
        this.mode = mode;
        this.method = method;
    }

    void at(Destination d) {
        destination = d;
        host = d.host();
        port = d.port();
    }

    Verdict allow(Outgoing outgoing) {
        return freeze(outgoing, null, false);
    }

    Verdict refuse(Refusal refusal) {
        return freeze(null, refusal, false);
    }

    Verdict unreadable(Refusal refusal) {
        return freeze(null, refusal, true);
    }

    Verdict refuse(Refusal refusal, boolean unreadable) {
        return freeze(null, refusal, unreadable);
    }

    private Verdict freeze(Outgoing outgoing, Refusal refusal, boolean unreadable) {
        String audited = host != null ? host : refusal == null ? null : refusal.host();
        return new Verdict(mode, method, scheme, audited, port, path, destination, policy, credential, injection, applied,
                outgoing, refusal, unreadable, place, dlp, refusal == null ? budget : BudgetTicket.NONE, uses);
    }
}
