package org.cyverse.mesa.egress.injector;

/**
 * What a {@link CredentialKind}'s step made of one request beyond its head: a check its body must
 * pass, how its client reads a refusal, and what its audit record adds. Made per request on the
 * request's thread, confined to it. Every part is optional.
 */
public interface RequestUse {

    /** Nothing beyond the head: no body check, the JSON refusal, no audit part. */
    RequestUse NONE = new RequestUse() {};

    /** The check this request's body must pass as it streams (a push's branch rule, re-signed chunks), or {@code null}. */
    default BodyCheck.Plan body() {
        return null;
    }

    /** How this request's client shows a person a refusal. */
    default AnswerStyle answerStyle() {
        return AnswerStyle.JSON;
    }

    /**
     * This request's part of its audit record, taken once the request has ended (on its own
     * thread, so a part may include what the body check found), or {@code null} for none.
     */
    default AuditPart audit() {
        return null;
    }
}
