package org.cyverse.mesa.egress.injector.openbao;

import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * An OpenBao call failed. The message names the call and what the status means; it never holds a
 * token, a JWT or a secret value (OpenBao's own error text is included only after scrubbing).
 */
final class OpenBaoException extends Exception {

    /** Status 0: no HTTP answer at all (refused, timed out, TLS failure). */
    static final int NO_ANSWER = 0;

    private final int status;

    OpenBaoException(String message, int status) {
        super(message, null, false, false);
        this.status = status;
    }

    /** The HTTP status, or {@link #NO_ANSWER}. */
    int status() {
        return status;
    }

    /** 403: the token or the lease was revoked, or the policy does not allow the call. */
    boolean denied() {
        return status == 403;
    }

    /** A 4xx other than 403 (bad request, not found): asking again will not help. */
    boolean refused() {
        return status >= 400 && status < 500 && status != 403 && status != 429;
    }

    /** As the credential store wants it: a 403 drops the cached value at once. */
    SecretUnavailableException unavailable() {
        return new SecretUnavailableException(getMessage(), denied(), null);
    }

    /** What a status means for an operator reading the log or /readyz. */
    static String meaning(int status) {
        return switch (status) {
            case NO_ANSWER -> "no answer";
            case 400 -> "400 bad request";
            case 403 -> "403 permission denied (token or lease revoked, or the policy does not allow it)";
            case 404 -> "404 not found";
            case 429 -> "429 rate limited or standby node";
            case 503 -> "503 sealed or unavailable";
            default -> status >= 500 ? status + " server error" : String.valueOf(status);
        };
    }
}
