package org.cyverse.mesa.egress.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.injector.CredentialLimits;

/**
 * Reads a credential's {@code limits}: {@code requests_per_minute} and {@code concurrent} as
 * whole numbers, {@code request_bytes_per_hour} and {@code response_bytes_per_hour} as a byte
 * count or a size such as {@code 500MiB} or {@code 2GB}.
 */
final class LimitsReader {

    static final List<String> KEYS = List.of("requests_per_minute", "concurrent", "request_bytes_per_hour", "response_bytes_per_hour");

    /** The most requests a minute the proxy keeps start times for (one long each). */
    static final int MAX_REQUESTS_PER_MINUTE = 1_000_000;
    /** A number of bytes, or a number (decimals allowed) and a unit. */
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,30}(?:\\.[0-9]{1,9})?)\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)?",
            Pattern.CASE_INSENSITIVE);
    private static final long MAX_BYTES = 1L << 62;

    private LimitsReader() {}

    /** @return the limits ({@link CredentialLimits#NONE} when absent); problems are reported under {@code limits} */
    static CredentialLimits read(MapReader credential) {
        int before = credential.problems().size();
        MapReader l = credential.map("limits", KEYS);
        if (l == null) {
            return CredentialLimits.NONE;
        }
        int rpm = l.integer("requests_per_minute", 0, 1, MAX_REQUESTS_PER_MINUTE);
        int concurrent = l.integer("concurrent", 0, 1, 100_000);
        long up = size(l, "request_bytes_per_hour");
        long down = size(l, "response_bytes_per_hour");
        if (l.problems().size() != before) {
            return CredentialLimits.NONE;
        }
        CredentialLimits limits = new CredentialLimits(rpm, concurrent, up, down);
        if (!limits.any()) {
            credential.problem("limits", "sets no limit; give at least one of " + String.join(", ", KEYS) + ", or remove it");
        }
        return limits;
    }

    private static long size(MapReader l, String key) {
        YamlNode raw = l.raw(key);
        if (raw == null) {
            return 0;
        }
        Long whole = MapReader.wholeNumber(raw);
        String text = whole != null ? ((YamlNode.Scalar) raw).text() : l.string(key);
        if (text == null) {
            return 0;
        }
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            l.problem(key, "\"" + text + "\" is not a size; write a number of bytes, or a number and a unit of B, KB, MB, GB, TB,"
                    + " KiB, MiB, GiB or TiB, e.g. 500MiB or 1.5GiB");
            return 0;
        }
        long unit = switch (m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT)) {
            case "KB" -> 1_000L;
            case "MB" -> 1_000_000L;
            case "GB" -> 1_000_000_000L;
            case "TB" -> 1_000_000_000_000L;
            case "KIB" -> 1L << 10;
            case "MIB" -> 1L << 20;
            case "GIB" -> 1L << 30;
            case "TIB" -> 1L << 40;
            default -> 1L;
        };
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).setScale(0, RoundingMode.FLOOR);
        if (bytes.signum() == 0) {
            l.problem(key, "must be at least 1 byte, got \"" + text + "\"");
            return 0;
        }
        if (bytes.compareTo(BigDecimal.valueOf(MAX_BYTES)) > 0) {
            l.problem(key, "must be at most 4 EiB, got \"" + text + "\"");
            return 0;
        }
        return bytes.longValueExact();
    }
}
