package org.cyverse.mesa.egress.approval;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An approve call's {@code ttl}: a whole number and {@code s}, {@code m}, {@code h} or {@code d}, or {@code "job"}. */
public final class ApprovalTtl {

    private static final Pattern TTL = Pattern.compile("([1-9][0-9]{0,6})(s|m|h|d)");
    /** Longer TTLs are refused: a grant that long is a config change, not an approval. */
    static final Duration MAX = Duration.ofDays(30);

    private ApprovalTtl() {}

    /**
     * @return the duration, or {@code null} for {@code "job"} (until the job ends)
     * @throws IllegalArgumentException naming the form expected
     */
    public static Duration parse(String text) {
        if (text.equals("job")) {
            return null;
        }
        Matcher m = TTL.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("ttl must be a whole number and s, m, h or d (e.g. 1h), or \"job\"; got \"" + text + "\"");
        }
        long n = Long.parseLong(m.group(1));
        Duration ttl = switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
        if (ttl.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("ttl must be at most 30d (or \"job\"); got \"" + text + "\"");
        }
        return ttl;
    }

    /** As it is written: {@code 90s}, {@code 15m}, {@code 1h}, {@code 2d} (the largest unit that divides it). */
    public static String describe(Duration ttl) {
        long s = ttl.toSeconds();
        if (s % 86400 == 0) {
            return s / 86400 + "d";
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        return s % 60 == 0 ? s / 60 + "m" : s + "s";
    }
}
