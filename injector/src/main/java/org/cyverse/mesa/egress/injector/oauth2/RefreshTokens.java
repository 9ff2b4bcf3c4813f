package org.cyverse.mesa.egress.injector.oauth2;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.cyverse.mesa.egress.injector.Secret;

/**
 * The refresh tokens this process holds, one chain per grant (token endpoint, client, and the
 * secret reference the first token came from). Keycloak rotates refresh tokens: each refresh
 * answers a new one and, with "Revoke Refresh Token" on, the old one stops working. So the newest
 * token must outlive the minter that got it: a reloaded config makes a new minter (and the old
 * store may still refresh until the new one is ready), and both must use, and serialize on, the
 * same newest token; a minter starting from the reference's value again would send a revoked
 * token and end the user's access. Process-wide for that reason; never written to disk.
 */
final class RefreshTokens {

    private static final Map<String, RefreshTokens> CHAINS = new ConcurrentHashMap<>();

    /** The value the reference held when this chain last took it (to tell an operator's new token from our own rotation). */
    private Secret fromSource;
    /** The newest refresh token, or {@code null} before the first read. */
    private Secret newest;

    private RefreshTokens() {}

    /** The chain of {@code key}; callers hold its lock for a whole refresh ({@code synchronized (chain)}). */
    static RefreshTokens chain(String key) {
        return CHAINS.computeIfAbsent(key, k -> new RefreshTokens());
    }

    /**
     * The token to send, given what the reference holds now: the newest rotated token while the
     * reference still holds the value it held before, else the reference's value (an operator put
     * a new token there: it wins over what was rotated from the old one).
     */
    Secret current(Secret inSource) {
        if (newest == null || inSource != null && !inSource.equals(fromSource)) {
            fromSource = inSource;
            newest = inSource;
        }
        return newest;
    }

    /** The server answered a new refresh token: it replaces the old one at once. */
    void rotated(Secret next) {
        newest = next;
    }
}
