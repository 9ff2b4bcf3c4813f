package org.cyverse.mesa.egress.injector.openbao;

/**
 * One way of getting an OpenBao token ({@code broker.openbao.auth.method}). Calls block.
 */
interface LoginMethod {

    /** Obtains a new token (logs in, reads the token file, or unwraps). */
    AuthToken login() throws OpenBaoException;

    /** Whether {@code current} is still what this method would present now (a token file may have been rewritten). */
    default boolean stillCurrent(AuthToken current) {
        return true;
    }

    /** Whether {@link #login} could replace {@code current} with another token (a wrapped token works once). */
    boolean canLogInAgain(AuthToken current);

    /** For messages, e.g. {@code "kubernetes login (role vice-analysis)"}. */
    String describe();
}
