package org.cyverse.mesa.egress.injector.mint;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/** Reads LiteLLM's {@code expires}: ISO 8601, with or without an offset (LiteLLM writes Python's {@code datetime.isoformat()}). */
final class LiteLlmTimes {

    private LiteLlmTimes() {}

    /** {@code null} for a key without an expiry ({@code "expires": null} or absent). */
    static Instant expires(JsonNode expires) throws SecretUnavailableException {
        if (expires == null || expires.isNull()) {
            return null;
        }
        String text = expires.asText();
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException withoutOffset) {
            try {
                // A naive datetime: LiteLLM computes expiries in UTC.
                return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e) {
                throw new SecretUnavailableException("LiteLLM's \"expires\" is not an ISO 8601 time: \"" + abbreviate(text) + "\"");
            }
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
