package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A credential's {@code limits:} in the proxy, whatever the upstream enforces itself: how many
 * requests carrying it may start per minute, how many may run at once, and how many body bytes
 * they may send and receive per hour. Zero means no limit of that kind.
 *
 * @param requestsPerMinute requests started in any 60 seconds, or 0
 * @param concurrent requests in flight at once, or 0
 * @param requestBytesPerHour request body bytes sent in the last hour, or 0
 * @param responseBytesPerHour response body bytes received in the last hour, or 0
 */
public record CredentialLimits(int requestsPerMinute, int concurrent, long requestBytesPerHour, long responseBytesPerHour) {

    /** No limit at all: the default of a credential without {@code limits:}. */
    public static final CredentialLimits NONE = new CredentialLimits(0, 0, 0, 0);

    /** The kinds of limit, each with its config key. */
    public enum Kind {
        REQUESTS_PER_MINUTE, CONCURRENT, REQUEST_BYTES_PER_HOUR, RESPONSE_BYTES_PER_HOUR;

        private final String key = name().toLowerCase(Locale.ROOT);

        /** The key under {@code limits:}, also the {@code limit} metric label, e.g. {@code requests_per_minute}. */
        public String key() {
            return key;
        }
    }

    public CredentialLimits {
        if (requestsPerMinute < 0 || concurrent < 0 || requestBytesPerHour < 0 || responseBytesPerHour < 0) {
            throw new IllegalArgumentException("limits are zero (none) or positive");
        }
    }

    /** Whether any limit is set. */
    public boolean any() {
        return !equals(NONE);
    }

    /** The configured value of one kind (0: none). */
    public long of(Kind kind) {
        return switch (kind) {
            case REQUESTS_PER_MINUTE -> requestsPerMinute;
            case CONCURRENT -> concurrent;
            case REQUEST_BYTES_PER_HOUR -> requestBytesPerHour;
            case RESPONSE_BYTES_PER_HOUR -> responseBytesPerHour;
        };
    }

    /** For {@code check} and log lines, e.g. {@code 600 requests/min, 16 concurrent}; {@code none} without limits. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (requestsPerMinute > 0) {
            parts.add(requestsPerMinute + " requests/min");
        }
        if (concurrent > 0) {
            parts.add(concurrent + " concurrent");
        }
        if (requestBytesPerHour > 0) {
            parts.add(bytes(requestBytesPerHour) + " sent/hour");
        }
        if (responseBytesPerHour > 0) {
            parts.add(bytes(responseBytesPerHour) + " received/hour");
        }
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    /** A byte count as a person reads it: {@code 512 B}, {@code 10 MiB}, {@code 1.5 GiB}. */
    public static String bytes(long n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = n;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        if (unit == 0 || value == Math.rint(value)) {
            return (long) value + " " + units[unit];
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
