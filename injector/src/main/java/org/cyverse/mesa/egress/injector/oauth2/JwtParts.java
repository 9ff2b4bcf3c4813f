package org.cyverse.mesa.egress.injector.oauth2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.Base64;

/**
 * The three base64url parts of a compact JWS (RFC 7515 section 7.1), read without checking the
 * signature: the proxy only needs to know a token's signature part (a leak needle of its own:
 * unique per token, while the header part is shared by every token of an issuer) and its
 * {@code exp}. Anything that is not three non-empty parts is not a JWT here.
 */
record JwtParts(String header, String payload, String signature) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code token}'s parts, or {@code null} when it is not a compact JWS. */
    static JwtParts of(String token) {
        int first = token.indexOf('.');
        int second = first < 0 ? -1 : token.indexOf('.', first + 1);
        if (first <= 0 || second <= first + 1 || second == token.length() - 1 || token.indexOf('.', second + 1) >= 0) {
            return null;
        }
        return new JwtParts(token.substring(0, first), token.substring(first + 1, second), token.substring(second + 1));
    }

    /** The payload's {@code exp} (seconds since the epoch, in the issuer's clock), or {@code null}. */
    Instant expiry() {
        try {
            JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(payload));
            JsonNode exp = claims == null ? null : claims.get("exp");
            return exp != null && exp.canConvertToLong() ? Instant.ofEpochSecond(exp.asLong()) : null;
        } catch (IOException | IllegalArgumentException e) {
            return null; // not base64url JSON: an opaque token that happens to hold two dots
        }
    }
}
