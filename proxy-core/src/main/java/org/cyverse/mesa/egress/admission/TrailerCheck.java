package org.cyverse.mesa.egress.admission;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;

/**
 * SPEC.md step 5 for the trailer fields of an admitted chunked request, which arrive after its
 * body, long after its head was decided: every {@link CredentialStep} looks at them as at header
 * fields (a real secret, a sentinel out of scope or over plain http refuse the request, place
 * {@code trailer}; a sentinel in scope is replaced), and a field named like a credential's
 * {@code header} is refused, since an upstream that folds trailers into the header section would
 * read it as the credential; then {@code dlp}, as on the head (refused in block mode, recorded with
 * place {@code trailer} in audit mode). (The request decoder refuses the fields RFC 9110 section
 * 6.5.1 keeps out of trailers, and malformed lines, before this.) Immutable.
 */
public final class TrailerCheck {

    /**
     * What the check made of a trailer section: the fields to send, or the refusal.
     *
     * @param credential the credential a refusal concerns, or {@code null}
     * @param injection what the refusing step found, or {@code null}
     * @param dlpRule the {@code dlp} rule that matched a trailer (refused in block mode, to be recorded in audit mode), or {@code null}
     */
    public record Outcome(List<Map.Entry<String, String>> fields, Refusal refusal, String credential, Injection.Outcome injection,
            String dlpRule) {}

    private final List<CredentialStep> steps;
    private final OutgoingRequest sent;
    private final List<CredentialSpec> credentials;
    private final String profile;
    private final BiFunction<OutgoingRequest, List<Map.Entry<String, String>>, String> dlpRule;
    private final boolean dlpBlocks;

    /**
     * @param sent the request head as the client sent it (before any credential was applied)
     * @param dlpRule the {@code dlp} rule a request's trailer fields match, or {@code null}
     * @param dlpBlocks whether such a match refuses the request
     */
    TrailerCheck(List<CredentialStep> steps, OutgoingRequest sent, List<CredentialSpec> credentials, String profile,
            BiFunction<OutgoingRequest, List<Map.Entry<String, String>>, String> dlpRule, boolean dlpBlocks) {
        this.dlpRule = dlpRule;
        this.dlpBlocks = dlpBlocks;
        this.steps = steps;
        this.sent = sent;
        this.credentials = credentials;
        this.profile = profile;
    }

    /** Judges {@code fields}, in order as they came. */
    public Outcome check(List<Map.Entry<String, String>> fields) {
        for (Map.Entry<String, String> field : fields) {
            for (CredentialSpec c : credentials) {
                if (c.header() != null && c.header().equalsIgnoreCase(field.getKey())) {
                    return new Outcome(null, Refusals.badRequest(Refusals.Problem.MALFORMED_TRAILERS, "trailer field "
                            + c.header().toLowerCase(Locale.ROOT) + " is credential " + c.name() + "'s header"), c.name(), null, null);
                }
            }
        }
        List<Map.Entry<String, String>> out = fields;
        for (CredentialStep step : steps) {
            Injection injection = step.trailers(sent, out);
            if (injection.refused()) {
                return new Outcome(null, CredentialRefusals.credential(injection, sent.destination().host(), profile), injection.credential(),
                        injection.outcome(), null);
            }
            out = injection.headers();
        }
        // Then dlp, as for the head: on the fields as the client sent them.
        String rule = dlpRule.apply(sent, fields);
        if (rule != null && dlpBlocks) {
            return new Outcome(null, Refusals.dlp(rule, "trailer", sent.destination().host(), profile), null, null, rule);
        }
        return new Outcome(out, null, null, null, rule);
    }

    /** Without the request: its head may hold a secret once rewritten. */
    @Override
    public String toString() {
        return "TrailerCheck[" + steps.size() + " steps]";
    }
}
