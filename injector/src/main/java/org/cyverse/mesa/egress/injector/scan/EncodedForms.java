package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The spellings of a value that a body scan looks for as needles. Percent-encoding, JSON escapes
 * and line breaks are undone by the scanner's views instead ({@link BodyScanner}), since their
 * spellings are too many to list; base64 cannot be undone without knowing where it starts, so
 * its spellings are listed: for each of the three byte offsets the value can have inside a longer
 * base64 text (a JSON document, {@code user:secret} of Basic, a MIME part), the characters that
 * depend on the value's bytes alone, in both alphabets (RFC 4648 sections 4 and 5).
 */
public final class EncodedForms {

    /**
     * Base64 fragments shorter than this are not looked for: a short run of base64 characters
     * occurs by chance in large base64 payloads (images sent to a model), a 12-character one
     * about once in 2^72 positions.
     */
    static final int MIN_BASE64_FRAGMENT = 12;

    private EncodedForms() {}

    /** The distinct base64 fragments of {@code value} that every base64 text containing it contains. */
    public static List<byte[]> base64Fragments(byte[] value) {
        Set<String> fragments = new LinkedHashSet<>();
        for (Base64.Encoder encoder : List.of(Base64.getEncoder().withoutPadding(), Base64.getUrlEncoder().withoutPadding())) {
            for (int offset = 0; offset < 3; offset++) {
                byte[] placed = new byte[offset + value.length];
                System.arraycopy(value, 0, placed, offset, value.length);
                String encoded = encoder.encodeToString(placed);
                // Characters 0-1 (offset 1) or 0-2 (offset 2) mix in bits of the bytes before the value.
                int front = offset == 0 ? 0 : offset == 1 ? 2 : 3;
                // A last partial group's final character mixes in bits of the bytes after it.
                int back = placed.length % 3 == 0 ? 0 : 1;
                if (encoded.length() - back - front >= MIN_BASE64_FRAGMENT) {
                    fragments.add(encoded.substring(front, encoded.length() - back));
                }
            }
        }
        List<byte[]> out = new ArrayList<>();
        fragments.forEach(f -> out.add(f.getBytes(StandardCharsets.US_ASCII)));
        return out;
    }

    /** {@code value}'s bytes as hex, lowercase then uppercase (a hex dump, a hex-encoded field). */
    public static List<byte[]> hex(byte[] value) {
        String lower = HexFormat.of().formatHex(value);
        return List.of(lower.getBytes(StandardCharsets.US_ASCII), lower.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
    }

    /** {@code value} in UTF-16LE then UTF-16BE (a document a Windows tool or a JavaScript runtime wrote as UTF-16 text). */
    public static List<byte[]> utf16(String value) {
        return List.of(value.getBytes(StandardCharsets.UTF_16LE), value.getBytes(StandardCharsets.UTF_16BE));
    }
}
