package org.cyverse.mesa.egress.allowlist;

import java.util.List;

/**
 * A path glob of a rule: {@code *} matches within one segment, {@code **} across segments,
 * e.g. {@code /api/**}, {@code /repos/*\/pulls}. Matched against the request path without the
 * query, after removing dot-segments and decoding percent-encoded unreserved characters, so
 * {@code /api/../admin} cannot pass {@code /api/**}. A path whose meaning servers disagree on
 * (an encoded slash, an encoded dot segment, a backslash, {@code //}, ...) matches no glob; see
 * {@link PathNormalizer}.
 *
 * <p>{@code /api/**} matches {@code /api} and everything below it, not {@code /apix}.
 * Matching is case-sensitive, as RFC 3986 paths are.
 */
public final class PathGlob {

    private final String text;
    private final String[] segments;

    private PathGlob(String text, String[] segments) {
        this.text = text;
        this.segments = segments;
    }

    /**
     * @throws IllegalArgumentException when the glob does not start with {@code /}, or holds
     *     what a normalized path never does ({@code %}, {@code \}, {@code ?}, {@code #}, dot or
     *     empty segments) or {@code **} inside a segment
     */
    public static PathGlob parse(String text) {
        if (text == null || !text.startsWith("/")) {
            throw new IllegalArgumentException("path glob '" + text + "' must start with /");
        }
        String[] segments = text.substring(1).split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            String problem = null;
            if (s.isEmpty() && i < segments.length - 1) {
                problem = "an empty segment (//)";
            } else if (s.equals(".") || s.equals("..")) {
                problem = "a dot segment";
            } else if (s.contains("**") && !s.equals("**")) {
                problem = "'**' inside a segment; it must be a whole segment";
            } else if (s.chars().anyMatch(c -> c <= 0x20 || c >= 0x7f || c == '%' || c == '\\' || c == '?' || c == '#')) {
                problem = "a character that normalized paths never hold";
            }
            if (problem != null) {
                throw new IllegalArgumentException("path glob '" + text + "' has " + problem);
            }
        }
        return new PathGlob(text, segments);
    }

    /** Whether the path, once normalized, matches; false for an ambiguous path. */
    public boolean matches(String path) {
        List<String> normalized = PathNormalizer.segments(path);
        return normalized != null && matchesSegments(normalized);
    }

    /** Matches segments already produced by {@link PathNormalizer#segments}. */
    boolean matchesSegments(List<String> path) {
        int g = segments.length;
        int p = path.size();
        // can[i][j]: glob segments from i match path segments from j. Dynamic programming keeps
        // several "**" linear in the path's length instead of exponential backtracking.
        boolean[][] can = new boolean[g + 1][p + 1];
        can[g][p] = true;
        for (int i = g - 1; i >= 0; i--) {
            boolean any = segments[i].equals("**");
            for (int j = p; j >= 0; j--) {
                if (any) {
                    can[i][j] = can[i + 1][j] || j < p && can[i][j + 1];
                } else {
                    can[i][j] = j < p && can[i + 1][j + 1] && segmentMatches(segments[i], path.get(j));
                }
            }
        }
        return can[0][0];
    }

    /** {@code *} matches any run of characters within one segment, the empty run included. */
    static boolean segmentMatches(String glob, String segment) {
        int g = 0;
        int s = 0;
        int star = -1;
        int mark = 0;
        while (s < segment.length()) {
            if (g < glob.length() && glob.charAt(g) != '*' && glob.charAt(g) == segment.charAt(s)) {
                g++;
                s++;
            } else if (g < glob.length() && glob.charAt(g) == '*') {
                star = g++;
                mark = s;
            } else if (star >= 0) {
                g = star + 1;
                s = ++mark;
            } else {
                return false;
            }
        }
        while (g < glob.length() && glob.charAt(g) == '*') {
            g++;
        }
        return g == glob.length();
    }

    /** The glob as written in the config file. */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathGlob && ((PathGlob) o).text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
