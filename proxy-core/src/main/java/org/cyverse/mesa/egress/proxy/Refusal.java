package org.cyverse.mesa.egress.proxy;

import io.netty.handler.codec.http.HttpResponseStatus;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * A refusal the proxy answers with (SPEC.md "Answers the proxy gives").
 *
 * @param status the HTTP status
 * @param reason the reason code
 * @param error one sentence for a person: what happened
 * @param host the canonical (or, when unparseable, the raw) destination host, or {@code null}
 * @param hint what a person could change
 * @param rule the rule that refused, for the audit record, or {@code null}
 */
public record Refusal(HttpResponseStatus status, Reason reason, String error, String host, String hint, String rule) {

    /** The same refusal with another hint. */
    public Refusal withHint(String newHint) {
        return new Refusal(status, reason, error, host, newHint, rule);
    }
}
