package org.cyverse.mesa.egress.proxy.http;

import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;

/**
 * Emitted by {@link org.cyverse.mesa.egress.proxy.agent.StrictRequestDecoder} instead of a request whose head it refused: too large,
 * malformed, or framed ambiguously.
 *
 * @param reason {@link Reason#BAD_REQUEST} or {@link Reason#HEADERS_TOO_LARGE}
 * @param problem for a bad request, its shape; else {@code null}
 * @param detail what exactly was wrong, or {@code null}
 * @param method the request's method when Netty parsed the head, else {@code null}
 */
public record RejectedHead(Reason reason, Refusals.Problem problem, String detail, String method) {

    /** The answer. */
    public Refusal refusal(String profile) {
        return reason == Reason.HEADERS_TOO_LARGE ? Refusals.of(Reason.HEADERS_TOO_LARGE, null, profile, detail)
                : Refusals.badRequest(problem, detail);
    }
}
