package org.cyverse.mesa.egress.admission;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.RequestUse;
import org.cyverse.mesa.egress.injector.Secret;

/**
 * SPEC.md step 5 for one request: every {@link CredentialStep} in turn refuses it or rewrites it,
 * each seeing the request as the one before left it; what they did is noted on the draft (the
 * outcome, the credential, where a finding was, what was applied, what each kind made of the
 * request). Part of {@link Admission}.
 *
 * @param refusal the refusal of the step that refused (in the form its kind said the client reads), or {@code null}
 * @param outgoing the request as the last step left it
 * @param bodySubstitution sentinel to secret in the body, for credentials that opted in
 * @param bodyChecks the checks the kinds gave the body (a push's branch rule, re-signed chunks), in step order
 */
record CredentialPass(Refusal refusal, OutgoingRequest outgoing, Map<String, Secret> bodySubstitution, List<BodyCheck.Plan> bodyChecks) {

    static CredentialPass run(List<CredentialStep> steps, OutgoingRequest sent, VerdictDraft draft, LeakRedaction redaction,
            String profile) {
        Destination destination = sent.destination();
        OutgoingRequest outgoing = sent;
        Map<String, Secret> body = Map.of(); // a map of its own only when a credential substitutes in the body
        List<BodyCheck.Plan> bodyChecks = List.of();
        List<Injection.Applied> applied = new ArrayList<>();
        for (CredentialStep step : steps) {
            Injection injection = step.apply(outgoing);
            if (injection.outcome() != Injection.Outcome.UNCHANGED && (draft.injection == null || injection.refused())) {
                // The outcome and the credential it concerns go together: the first applied, or the refused one.
                draft.injection = injection.outcome();
                draft.credential = injection.credential();
            }
            if (injection.use() != RequestUse.NONE) {
                draft.uses = draft.uses.isEmpty() ? new ArrayList<>() : draft.uses;
                draft.uses.add(injection.use());
            }
            if (injection.refused()) {
                draft.place = injection.place();
                String host = redaction.field(destination.host());
                if (injection.outcome() == Injection.Outcome.SECRET_LEAK) {
                    // The leaked value may sit in the path (in any encoding) or the host name: keep it out of the audit log.
                    draft.path = "[redacted]";
                    draft.host = host;
                }
                Refusal refusal = CredentialRefusals.credential(injection, host, profile);
                return new CredentialPass(AnswerStyles.styled(refusal, injection.use().answerStyle()), outgoing, body, List.of());
            }
            applied.addAll(injection.applied());
            if (injection.use().body() != null) {
                bodyChecks = bodyChecks.isEmpty() ? new ArrayList<>() : bodyChecks;
                bodyChecks.add(injection.use().body());
            }
            if (!injection.bodySubstitution().isEmpty()) {
                body = body.isEmpty() ? new LinkedHashMap<>() : body;
                injection.bodySubstitution().forEach(body::putIfAbsent);
            }
            outgoing = new OutgoingRequest(sent.tls(), destination, sent.method(), injection.pathAndQuery(), injection.headers());
        }
        draft.applied = applied;
        return new CredentialPass(null, outgoing, body, bodyChecks);
    }
}
