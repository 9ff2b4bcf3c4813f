package org.cyverse.mesa.egress.admission;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.github.PushCheck;
import org.cyverse.mesa.egress.injector.sigv4.ChunkResigner;

/**
 * SPEC.md step 5 for one request: every {@link CredentialStep} in turn refuses it or rewrites it,
 * each seeing the request as the one before left it; what they did is noted on the draft (the
 * outcome, the credential, where a finding was, what was applied). Part of {@link Admission}.
 *
 * @param refusal the refusal of the step that refused, or {@code null}
 * @param outgoing the request as the last step left it
 * @param bodySubstitution sentinel to secret in the body, for credentials that opted in
 * @param resigning how an aws_sigv4 body's chunk signatures are signed again, or {@code null}
 * @param push the branch rule's check of a push body, or {@code null}
 */
record CredentialPass(Refusal refusal, OutgoingRequest outgoing, Map<String, Secret> bodySubstitution, ChunkResigner.Plan resigning,
        PushCheck.Plan push) {

    static CredentialPass run(List<CredentialStep> steps, OutgoingRequest sent, VerdictDraft draft, LeakRedaction redaction,
            String profile) {
        Destination destination = sent.destination();
        OutgoingRequest outgoing = sent;
        Map<String, Secret> body = Map.of(); // a map of its own only when a credential substitutes in the body
        ChunkResigner.Plan resigning = null;
        PushCheck.Plan push = null;
        List<Injection.Applied> applied = new ArrayList<>();
        for (CredentialStep step : steps) {
            Injection injection = step.apply(outgoing);
            if (injection.outcome() != Injection.Outcome.UNCHANGED && (draft.injection == null || injection.refused())) {
                // The outcome and the credential it concerns go together: the first applied, or the refused one.
                draft.injection = injection.outcome();
                draft.credential = injection.credential();
            }
            draft.github = injection.github() != null ? injection.github() : draft.github;
            if (injection.refused()) {
                draft.place = injection.place();
                String host = redaction.field(destination.host());
                if (injection.outcome() == Injection.Outcome.SECRET_LEAK) {
                    // The leaked value may sit in the path (in any encoding) or the host name: keep it out of the audit log.
                    draft.path = "[redacted]";
                    draft.host = host;
                }
                Refusal refusal = CredentialRefusals.credential(injection, host, profile);
                return new CredentialPass(injection.github() == null ? refusal : GitHubRefusals.readable(refusal, injection.github()),
                        outgoing, body, null, null);
            }
            applied.addAll(injection.applied());
            resigning = injection.resigning() != null ? injection.resigning() : resigning;
            push = injection.github() != null && injection.github().push() != null ? injection.github().push() : push;
            if (!injection.bodySubstitution().isEmpty()) {
                body = body.isEmpty() ? new LinkedHashMap<>() : body;
                injection.bodySubstitution().forEach(body::putIfAbsent);
            }
            outgoing = new OutgoingRequest(sent.tls(), destination, sent.method(), injection.pathAndQuery(), injection.headers());
        }
        draft.applied = applied;
        return new CredentialPass(null, outgoing, body, resigning, push);
    }
}
