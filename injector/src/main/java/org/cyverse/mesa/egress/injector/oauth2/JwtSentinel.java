package org.cyverse.mesa.egress.injector.oauth2;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * {@code sentinel: auto} for {@code oauth2}: a placeholder shaped as a JWT, for clients that parse
 * a token before sending it (many MCP and OIDC clients read its {@code exp} to decide when to
 * refresh, or refuse what is not three base64url parts). Its header names no real key
 * ({@code kid: mesa-egress-sentinel}); its payload has the credential's name and audience, and an
 * {@code exp} in 2100 that no client acts on; its signature part is a digest of those, so the
 * sentinel is the same at every start of a pod with the same config (the agent's environment is
 * written once) and differs between credentials. It signs nothing and no server accepts it.
 */
public final class JwtSentinel {

    /** 2100-01-01T00:00:00Z: an expiry far enough that no client refreshes, present for those that require one. */
    static final long FAR_EXPIRY = 4102444800L;

    private JwtSentinel() {}

    /**
     * The sentinel of credential {@code credential}.
     *
     * @param audience the audience its tokens are for (the {@code audience}, else the credential's first host)
     */
    public static String of(String credential, String audience) {
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"mesa-egress-sentinel\"}";
        String payload = "{\"iss\":\"mesa-egress\",\"sub\":\"sentinel:" + json(credential) + "\",\"aud\":\"" + json(audience)
                + "\",\"exp\":" + FAR_EXPIRY + ",\"mesa_egress_sentinel\":true}";
        String head = encode(header.getBytes(StandardCharsets.UTF_8)) + "." + encode(payload.getBytes(StandardCharsets.UTF_8));
        return head + "." + encode(digest(head));
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(("mesa-egress sentinel " + text).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    private static String encode(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Names are [a-z0-9_-] and audiences a client id or a host, but quote them as JSON anyway. */
    private static String json(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
