package org.cyverse.mesa.egress.admission;

import java.util.Map;

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
 * @param answer the answer in the client's own protocol instead of SPEC.md's JSON (git reads plain text and
 *     receive-pack reports), or {@code null}; the reason header and the audit record stay the same
 */
public record Refusal(int status, Reason reason, String error, String host, String hint, String rule, long retryAfterSeconds,
        Map<String, Object> details, Answer answer) {

    /**
     * An answer body in the client's protocol.
     *
     * @param status the HTTP status sent (200 for a receive-pack report: git reads the refusal inside it)
     */
    public record Answer(int status, String contentType, byte[] body) {
        public Answer {
            body = body.clone();
        }

        @Override
        public byte[] body() {
            return body.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Answer a && a.status == status && a.contentType.equals(contentType) && java.util.Arrays.equals(a.body, body);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(status, contentType, java.util.Arrays.hashCode(body));
        }

        @Override
        public String toString() {
            return "Answer[" + status + ", " + contentType + ", " + body.length + " bytes]";
        }
    }

    /** A refusal answered as SPEC.md's JSON. */
    public Refusal(int status, Reason reason, String error, String host, String hint, String rule, long retryAfterSeconds,
            Map<String, Object> details) {
        this(status, reason, error, host, hint, rule, retryAfterSeconds, details, null);
    }

    public Refusal {
        details = details == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(details));
    }

    /** This refusal answered as {@code answered}. */
    public Refusal answeredAs(Answer answered) {
        return new Refusal(status, reason, error, host, hint, rule, retryAfterSeconds, details, answered);
    }

    /**
     * This refusal with {@code text} applied to its error, host, hint and rule, and to a textual
     * answer (a scrub of secret values); itself when nothing changed.
     */
    public Refusal mapText(java.util.function.UnaryOperator<String> text) {
        Refusal mapped = new Refusal(status, reason, apply(text, error), apply(text, host), apply(text, hint), apply(text, rule),
                retryAfterSeconds, details, answer == null || !answer.contentType().startsWith("text/") ? answer
                : new Answer(answer.status(), answer.contentType(), text.apply(new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8))
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return mapped.equals(this) ? this : mapped;
    }

    private static String apply(java.util.function.UnaryOperator<String> text, String value) {
        return value == null ? null : text.apply(value);
    }
}
