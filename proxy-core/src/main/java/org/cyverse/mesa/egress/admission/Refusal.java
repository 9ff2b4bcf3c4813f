package org.cyverse.mesa.egress.admission;

import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * A refusal the proxy answers with (SPEC.md "Answers the proxy gives"). Made only by
 * {@link Refusals}, the one mapping from a reason and its facts to status, error and hint.
 *
 * @param status the HTTP status SPEC.md gives the reason
 * @param reason the reason code
 * @param error one sentence for a person: what happened
 * @param host the canonical (or, when unparseable, the raw) destination host, or {@code null}
 * @param hint what a person could change
 * @param rule the rule that refused, for the audit record, or {@code null}
 * @param retryAfterSeconds the answer's {@code Retry-After}, or 0 for none
 * @param details more fields of the answer's JSON body, in order (an approval's {@code approval_id},
 *     {@code scope}, {@code expires}); empty for most
 */
public record Refusal(int status, Reason reason, String error, String host, String hint, String rule, long retryAfterSeconds,
        Map<String, Object> details) {

    public Refusal {
        details = details == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(details));
    }

    /** This refusal with {@code text} applied to its error, host, hint and rule (a scrub of secret values); itself when nothing changed. */
    public Refusal mapText(java.util.function.UnaryOperator<String> text) {
        Refusal mapped = new Refusal(status, reason, apply(text, error), apply(text, host), apply(text, hint), apply(text, rule),
                retryAfterSeconds, details);
        return mapped.equals(this) ? this : mapped;
    }

    private static String apply(java.util.function.UnaryOperator<String> text, String value) {
        return value == null ? null : text.apply(value);
    }
}
