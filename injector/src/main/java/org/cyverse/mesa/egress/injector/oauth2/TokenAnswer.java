package org.cyverse.mesa.egress.injector.oauth2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * A token endpoint's successful answer (RFC 6749 section 5.1, RFC 8693 section 2.2.1) and how
 * long its access token is used.
 *
 * <p>Lifetime: {@code expires_in} counts from the answer, so it needs no clock agreement; a JWT's
 * {@code exp} is in the issuer's clock, so it is moved by the skew the answer's {@code Date}
 * header shows (the issuer's clock less ours). The earlier of the two ends the token; without
 * either, {@link #UNSTATED_LIFETIME}. The token is used until {@link #margin} before that end, so
 * it never reaches a resource server in its last seconds (the request's own trip, the server's
 * skew).
 *
 * @param access the access token
 * @param refresh a new refresh token, or {@code null} when the answer has none (no rotation)
 * @param usableUntil when the proxy stops sending {@code access}
 */
record TokenAnswer(Secret access, Secret refresh, Instant usableUntil) {

    /** RFC 6749 section 5.1 makes {@code expires_in} optional: an unstated lifetime is taken as short. */
    static final Duration UNSTATED_LIFETIME = Duration.ofSeconds(60);
    static final Duration LONGEST_MARGIN = Duration.ofSeconds(30);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads a 200 answer received at {@code received} (our clock). */
    static TokenAnswer read(HttpResponse<String> response, Instant received, String where) throws SecretUnavailableException {
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (IOException e) {
            throw new SecretUnavailableException(where + ": answered 200 with a body that is not JSON");
        }
        String access = body == null ? null : body.path("access_token").asText(null);
        if (access == null || access.isEmpty()) {
            throw new SecretUnavailableException(where + ": the answer holds no access_token");
        }
        String type = body.path("token_type").asText("");
        if (!type.equalsIgnoreCase("bearer")) {
            // DPoP or MAC tokens are bound to a key the client proves; the proxy only sends bearer tokens.
            throw new SecretUnavailableException(where + ": the token_type is \"" + type + "\"; the proxy sends Bearer tokens only");
        }
        String refresh = body.path("refresh_token").asText(null);
        Long expiresIn = seconds(body.get("expires_in"));
        JwtParts jwt = JwtParts.of(access);
        Instant claimed = jwt == null ? null : jwt.expiry();
        Instant end = end(received, expiresIn, claimed, skew(response, received));
        if (!end.isAfter(received)) {
            throw new SecretUnavailableException(where + ": the access token answered had already expired (expires_in "
                    + expiresIn + ", exp " + claimed + "); check the clocks of the proxy and the issuer");
        }
        return new TokenAnswer(Secret.of(access), refresh == null || refresh.isEmpty() ? null : Secret.of(refresh),
                end.minus(margin(Duration.between(received, end))));
    }

    /** The end of the token's life in our clock. */
    static Instant end(Instant received, Long expiresIn, Instant claimedExpiry, Duration skew) {
        Instant byLifetime = expiresIn == null ? null : received.plusSeconds(expiresIn);
        Instant byClaim = claimedExpiry == null ? null : claimedExpiry.minus(skew);
        if (byLifetime == null && byClaim == null) {
            return received.plus(UNSTATED_LIFETIME);
        }
        if (byLifetime == null || byClaim != null && byClaim.isBefore(byLifetime)) {
            return byClaim;
        }
        return byLifetime;
    }

    /** A tenth of the lifetime, at most {@link #LONGEST_MARGIN}. */
    static Duration margin(Duration lifetime) {
        Duration tenth = lifetime.dividedBy(10);
        return tenth.compareTo(LONGEST_MARGIN) > 0 ? LONGEST_MARGIN : tenth;
    }

    /** The issuer's clock less ours, from its {@code Date} header; zero without one. */
    static Duration skew(HttpResponse<?> response, Instant received) {
        return response.headers().firstValue("Date").map(date -> {
            try {
                Instant theirs = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                return Duration.between(received, theirs);
            } catch (DateTimeParseException e) {
                return Duration.ZERO;
            }
        }).orElse(Duration.ZERO);
    }

    /** A number of seconds, as a JSON number or (some servers) a numeric string; {@code null} when absent or not one. */
    private static Long seconds(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isNumber()) {
            return node.asLong();
        }
        String text = node.asText("").trim().toLowerCase(Locale.ROOT);
        return text.matches("\\d{1,12}") ? Long.valueOf(text) : null;
    }
}
