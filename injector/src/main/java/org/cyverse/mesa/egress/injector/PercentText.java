package org.cyverse.mesa.egress.injector;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A URI part (path, query) with its percent-encoding undone, remembering where each decoded byte
 * came from, so a sentinel written as {@code sk%2Dant-sentinel} is found as surely as the plain
 * one, and can be replaced in place. Decoded text is a byte string: one char (0..255) per byte.
 *
 * <p>One level of decoding, as the server applies: what the upstream reads is what is checked.
 */
public final class PercentText {

    private final String raw;
    private final String decoded;
    /** For decoded byte i: the raw range [from[i], to[i]) it came from. */
    private final int[] from;
    private final int[] to;

    private PercentText(String raw, String decoded, int[] from, int[] to) {
        this.raw = raw;
        this.decoded = decoded;
        this.from = from;
        this.to = to;
    }

    static PercentText of(String raw) {
        StringBuilder sb = new StringBuilder(raw.length());
        // One decoded byte per raw char at most, unless a char outside ASCII needs several.
        int[] from = new int[raw.length()];
        int[] to = new int[raw.length()];
        int n = 0;
        for (int i = 0; i < raw.length(); ) {
            char c = raw.charAt(i);
            int hi = i + 2 < raw.length() && c == '%' ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
            int end;
            byte[] bytes;
            if (lo >= 0) {
                bytes = new byte[] {(byte) (hi << 4 | lo)};
                end = i + 3;
            } else if (c < 0x80) {
                bytes = new byte[] {(byte) c};
                end = i + 1;
            } else {
                // Not valid in a URI, but tolerated: as its UTF-8 bytes, as a client would send it.
                int cp = raw.codePointAt(i);
                end = i + Character.charCount(cp);
                bytes = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
            }
            if (n + bytes.length > from.length) {
                from = Arrays.copyOf(from, Math.max(from.length * 2, n + bytes.length));
                to = Arrays.copyOf(to, from.length);
            }
            for (byte b : bytes) {
                sb.append((char) (b & 0xff));
                from[n] = i;
                to[n++] = end;
            }
            i = end;
        }
        return new PercentText(raw, sb.toString(), from, to);
    }

    /** {@code raw} with its percent-encoding undone, one char per byte (for places outside this package: the DLP head scan). */
    public static String decode(String raw) {
        return of(raw).decoded();
    }

    /** The decoded bytes, one char per byte. */
    String decoded() {
        return decoded;
    }

    /**
     * The raw text with every (leftmost, non-overlapping) occurrence of {@code needle} in the
     * decoded bytes replaced by {@code rawReplacement}, whatever mix of plain and encoded
     * characters spelled it.
     */
    String replace(String needle, String rawReplacement) {
        StringBuilder out = new StringBuilder(raw.length() + rawReplacement.length());
        int copied = 0;
        int at = decoded.indexOf(needle);
        while (at >= 0) {
            int start = from[at];
            int end = to[at + needle.length() - 1];
            if (start >= copied) {
                out.append(raw, copied, start).append(rawReplacement);
                copied = end;
            }
            at = decoded.indexOf(needle, at + needle.length());
        }
        return out.append(raw, copied, raw.length()).toString();
    }

    /** Percent-encodes every byte but RFC 3986 unreserved ones: safe in a path segment and in a query value (SigV4's URI encoding too). */
    public static String encode(String value) {
        StringBuilder sb = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }

    /** A string's UTF-8 bytes, one char per byte, to search decoded text with. */
    static String bytes(String value) {
        return new String(value.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }
}
