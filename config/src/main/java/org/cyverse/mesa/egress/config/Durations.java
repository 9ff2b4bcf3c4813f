package org.cyverse.mesa.egress.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Config durations (SPEC.md): a whole number and one unit of {@code ms}, {@code s}, {@code m}, {@code h}. */
final class Durations {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h)");

    private Durations() {}

    /**
     * Parses e.g. {@code 250ms}, {@code 5s}, {@code 1m}, {@code 2h}.
     *
     * @throws IllegalArgumentException naming the expected form; zero is refused because every
     *     duration of the config file is a timeout, and a zero timeout fails every request
     */
    static Duration parse(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("\"" + text + "\" is not a duration; write a whole number and a unit of ms, s, m or h, e.g. 5s or 250ms");
        }
        long amount = Long.parseLong(m.group(1));
        if (amount == 0) {
            throw new IllegalArgumentException("must be longer than zero, got \"" + text + "\"");
        }
        switch (m.group(2)) {
            case "ms":
                return Duration.of(amount, ChronoUnit.MILLIS);
            case "s":
                return Duration.ofSeconds(amount);
            case "m":
                return Duration.ofMinutes(amount);
            default:
                return Duration.ofHours(amount);
        }
    }
}
