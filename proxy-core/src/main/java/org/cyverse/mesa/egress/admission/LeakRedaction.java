package org.cyverse.mesa.egress.admission;

import java.util.List;
import java.util.Objects;
import org.cyverse.mesa.egress.admission.RequestFacts.Arrival;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;

/** Keeps real secret values out of the verdicts of refused requests (SPEC.md: never in an audit record or an error body). */
final class LeakRedaction {

    private final List<CredentialStep> steps;

    LeakRedaction(List<CredentialStep> steps) {
        this.steps = steps;
    }

    /** {@code text} with every secret value every credential kind holds replaced by its stand-in. */
    String scrub(String text) {
        for (CredentialStep step : steps) {
            text = step.scrub(text);
        }
        return text;
    }

    /** {@code field} itself, or {@code [redacted:NAME]} when it holds a value of credential NAME (any form, any case). */
    String field(String field) {
        for (CredentialStep step : steps) {
            field = step.redactField(field);
        }
        return field;
    }

    /**
     * A request refused before (or other than by) step 5 may still carry a real secret, in its
     * path, its host name or a header: it is looked for as step 5 would, and when found the audit
     * record gets the path {@code [redacted]}, the host withheld ({@code [redacted:NAME]}) when it holds
     * the value, the answer scrubbed, and the leaked
     * credential's name (and the leak is counted), while the reason stays the first step's, as
     * SPEC.md's order says.
     */
    Verdict of(VerdictDraft draft, RequestFacts facts, Verdict refused) {
        Injection leak = leak(draft, facts);
        Refusal r = refused.refusal();
        Refusal clean = r.mapText(this::scrub);
        String host = draft.host == null ? null : field(draft.host);
        String path = draft.path == null ? null : scrub(draft.path);
        if (leak == null && clean.equals(r) && Objects.equals(host, draft.host) && Objects.equals(path, draft.path)) {
            return refused;
        }
        draft.host = host;
        if (draft.path != null) {
            draft.path = "[redacted]";
        }
        if (leak != null) {
            draft.place = leak.place();
            draft.credential = leak.credential();
            draft.injection = Injection.Outcome.SECRET_LEAK;
        }
        return draft.rewritten(refused, clean);
    }

    /**
     * Whether any credential step would refuse {@code probe} (a real secret, a sentinel out of its
     * scope, over plain http), or {@code host} (as the client wrote it) holds a secret: what must
     * never reach the approval inbox.
     */
    boolean anyStepRefuses(String host, OutgoingRequest probe) {
        if (host != null && !scrub(host).equals(host)) {
            return true;
        }
        for (CredentialStep step : steps) {
            if (step.apply(probe).refused()) {
                return true;
            }
        }
        return false;
    }

    /** The request as step 5 would see it, or {@code null} before its destination is known. */
    OutgoingRequest probe(VerdictDraft draft, RequestFacts facts) {
        return draft.destination == null ? null : new OutgoingRequest(facts.arrival() == Arrival.INSIDE_TUNNEL, draft.destination,
                facts.method(), draft.pathAndQuery == null ? "/" : draft.pathAndQuery, facts.headers());
    }

    private Injection leak(VerdictDraft draft, RequestFacts facts) {
        OutgoingRequest probe = probe(draft, facts);
        if (probe == null) {
            return null;
        }
        for (CredentialStep step : steps) {
            Injection injection = step.apply(probe);
            if (injection.outcome() == Injection.Outcome.SECRET_LEAK) {
                return injection;
            }
        }
        return null;
    }
}
