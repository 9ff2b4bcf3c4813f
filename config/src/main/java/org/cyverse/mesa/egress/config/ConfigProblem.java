package org.cyverse.mesa.egress.config;

/**
 * One problem in a config file, printed as {@code FILE:LINE: key: message} by {@code validate}
 * ({@code FILE: key: message} when no line applies: a flag, a file that does not exist).
 *
 * @param file the file as the user named it, or {@code "command line"} for a flag
 * @param line 1-based line of the offending key or value, 0 when unknown
 * @param key dotted key path, e.g. {@code credentials[0].hosts} or {@code limits.idle_timeout}
 * @param message what is wrong and, where it helps, what would be right
 */
public record ConfigProblem(String file, int line, String key, String message) {
    @Override
    public String toString() {
        return file + (line > 0 ? ":" + line : "") + ": " + key + ": " + message;
    }
}
