package org.cyverse.mesa.egress.allowlist;

import java.util.ArrayList;
import java.util.List;

/**
 * Brings a request path to the one form path globs are matched against, or says it is ambiguous.
 *
 * <p>The threat: a path that the proxy reads one way and the upstream server another, so
 * {@code /api/**} lets {@code /api/../admin} through, or a deny rule for {@code /admin/**} misses
 * {@code /%61dmin}. What servers agree on is normalized (RFC 3986 section 6.2.2.2 decoding of
 * unreserved characters, section 5.2.4 dot-segment removal); what they disagree on is
 * ambiguous, and {@link Policy} refuses it wherever a path rule is involved.
 *
 * <p>Ambiguous: no leading {@code /}; bytes outside printable ASCII; {@code \}, {@code ?},
 * {@code #}; a malformed {@code %}; encoded {@code /} or {@code \} ({@code %2f}, {@code %5c});
 * {@code %25} (double encoding); an encoded dot segment ({@code %2e%2e}); a dot segment with
 * path parameters ({@code ..;x}, which Tomcat treats as {@code ..}); an empty segment inside the
 * path ({@code //}, which some servers merge before removing dot segments and some after).
 */
final class PathNormalizer {

    private PathNormalizer() {}

    /** The normalized path, or null when ambiguous. */
    static String normalize(String path) {
        List<String> segments = segments(path);
        return segments == null ? null : join(segments);
    }

    /**
     * The normalized path as segments ({@code /} is one empty segment, {@code /a/} is
     * {@code ["a", ""]}), or null when ambiguous.
     */
    static List<String> segments(String path) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/') {
            return null;
        }
        List<String> out = new ArrayList<>();
        int start = 1;
        boolean last = false;
        while (!last) {
            int end = path.indexOf('/', start);
            last = end < 0;
            if (last) {
                end = path.length();
            }
            String raw = path.substring(start, end);
            if (raw.isEmpty() && !last) {
                return null;
            }
            String decoded = decode(raw);
            if (decoded == null) {
                return null;
            }
            boolean dot = decoded.equals(".") || decoded.equals("..");
            if (dot && !raw.equals(decoded)) {
                return null;
            }
            if (isDotWithParameters(decoded)) {
                return null;
            }
            if (decoded.equals(".")) {
                if (last) {
                    out.add("");
                }
            } else if (decoded.equals("..")) {
                if (!out.isEmpty()) {
                    out.remove(out.size() - 1);
                }
                if (last) {
                    out.add("");
                }
            } else {
                out.add(decoded);
            }
            start = end + 1;
        }
        return out;
    }

    /** Decodes %XX of unreserved characters, upper-cases the hex of the rest; null if ambiguous. */
    private static String decode(String raw) {
        StringBuilder sb = null;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c <= 0x20 || c >= 0x7f || c == '\\' || c == '?' || c == '#') {
                return null;
            }
            if (c != '%') {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            if (i + 2 >= raw.length()) {
                return null;
            }
            int hi = IpText.digit(raw.charAt(i + 1), 16);
            int lo = IpText.digit(raw.charAt(i + 2), 16);
            if (hi < 0 || lo < 0) {
                return null;
            }
            char decoded = (char) (hi * 16 + lo);
            if (decoded == '/' || decoded == '\\' || decoded == '%') {
                return null;
            }
            if (sb == null) {
                sb = new StringBuilder(raw.length()).append(raw, 0, i);
            }
            if (isUnreserved(decoded)) {
                sb.append(decoded);
            } else {
                sb.append('%').append(Character.toUpperCase(raw.charAt(i + 1))).append(Character.toUpperCase(raw.charAt(i + 2)));
            }
            i += 2;
        }
        return sb == null ? raw : sb.toString();
    }

    /** {@code ..;x} or {@code .%3Bx}: servers that strip path parameters see a dot segment. */
    private static boolean isDotWithParameters(String segment) {
        int end = segment.indexOf(';');
        int encoded = segment.indexOf("%3B");
        if (end < 0 || encoded >= 0 && encoded < end) {
            end = encoded;
        }
        if (end < 0) {
            return false;
        }
        String head = segment.substring(0, end);
        return head.equals(".") || head.equals("..");
    }

    /** RFC 3986 section 2.3. */
    private static boolean isUnreserved(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static String join(List<String> segments) {
        StringBuilder sb = new StringBuilder();
        for (String s : segments) {
            sb.append('/').append(s);
        }
        return sb.length() == 0 ? "/" : sb.toString();
    }
}
