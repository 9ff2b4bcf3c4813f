package org.cyverse.mesa.egress.injector.budget;

import org.cyverse.mesa.egress.injector.CredentialLimits;
import java.time.Duration;

/**
 * Why a request carrying {@code credential} may not start now: which limit it would pass, and
 * when a retry can succeed.
 *
 * @param credential the credential's name
 * @param kind the limit reached
 * @param limit its configured value
 * @param retryAfter how long until the limit lets a request through again, at least one second
 *     (for {@code concurrent}, an estimate: a running request has to end first)
 */
public record BudgetRefusal(String credential, CredentialLimits.Kind kind, long limit, Duration retryAfter) implements BudgetOutcome {

    /** For the refusal's hint and the log: the limit in words, e.g. {@code requests_per_minute: 600}. */
    public String describe() {
        boolean bytes = kind == CredentialLimits.Kind.REQUEST_BYTES_PER_HOUR || kind == CredentialLimits.Kind.RESPONSE_BYTES_PER_HOUR;
        return kind.key() + ": " + (bytes ? CredentialLimits.bytes(limit) : Long.toString(limit));
    }
}
