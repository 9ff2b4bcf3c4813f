package org.cyverse.mesa.egress.injector;

/**
 * Makes the values of one minted credential and takes them back. Calls block (network): only the
 * credential store's executor calls them, never an event loop. Messages never hold a value.
 */
public interface Minter {

    /**
     * Mints a new value.
     *
     * @param previous the value it replaces, still valid, or {@code null} (the first mint, or after
     *     an expiry): the minter may carry what the previous one used up (a budget) over
     */
    SecretLease mint(SecretLease previous) throws SecretUnavailableException;

    /** Makes {@code lease} unusable at its issuer (LiteLLM: blocked, then deleted when configured). */
    void retire(SecretLease lease) throws SecretUnavailableException;

    /**
     * Whether {@link #retire} takes values back at all; {@code false} when the issuer has no way
     * to (an OAuth server without a revocation endpoint): replaced values are then just forgotten,
     * never reported as retired.
     */
    default boolean retires() {
        return true;
    }

    /**
     * Whether a value replaced while the job goes on (by a refresh, or by a reload's new store) is
     * taken back; by default whenever {@link #retires}. {@code false} where taking one back would
     * break the values that replace it: Keycloak removes the client from the user's session when
     * any access token of it is revoked, so the refresh token behind the next one would die.
     * Such values are taken back at stop and kill only, and otherwise run out on their own.
     */
    default boolean retiresReplaced() {
        return retires();
    }

    /**
     * At stop and at the kill switch, after the values were retired (never at a reload): takes
     * back what outlives them, such as an OAuth refresh token when the operator asked. Blocks.
     */
    default void end() throws SecretUnavailableException {}

    /** What a log line names a minted value by (its alias, never the value). */
    String describe(SecretLease lease);
}
