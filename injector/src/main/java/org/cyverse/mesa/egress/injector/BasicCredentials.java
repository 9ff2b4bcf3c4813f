package org.cyverse.mesa.egress.injector;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * HTTP Basic credentials (RFC 7617) in a header value: {@code Basic base64(user:password)}. git
 * sends a token as the password of user {@code x-access-token}, so a sentinel (or a leaked real
 * token) hides in the base64 text. Bad base64 is tolerated: the value is then opaque text.
 */
final class BasicCredentials {

    private final String scheme;
    /** The decoded credentials, one char per byte. */
    private final String decoded;

    private BasicCredentials(String scheme, String decoded) {
        this.scheme = scheme;
        this.decoded = decoded;
    }

    /** The credentials in {@code value}, or {@code null} when it is not {@code Basic} with decodable base64. */
    static BasicCredentials parse(String value) {
        String v = value.strip();
        int space = v.indexOf(' ');
        if (space != 5 || !v.regionMatches(true, 0, "Basic", 0, 5)) {
            return null;
        }
        String token = v.substring(space + 1).strip();
        if (token.isEmpty()) {
            return null;
        }
        byte[] bytes = decode(token);
        return bytes == null ? null : new BasicCredentials(v.substring(0, 5), new String(bytes, StandardCharsets.ISO_8859_1));
    }

    /** The base64 text of {@code value} when it is Basic credentials that decode, else {@code null}. */
    static String token(String value) {
        BasicCredentials basic = parse(value);
        return basic == null ? null : value.strip().substring(6).strip();
    }

    private static byte[] decode(String token) {
        // Servers differ in what they accept (padding, the URL-safe alphabet): so does this, so a
        // value cannot slip past the scan by a spelling that the upstream still decodes.
        try {
            return Base64.getDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            try {
                return Base64.getUrlDecoder().decode(token);
            } catch (IllegalArgumentException again) {
                return null;
            }
        }
    }

    /** The decoded {@code user:password}, one char per byte. */
    String decoded() {
        return decoded;
    }

    /** The header value for {@code newDecoded} (one char per byte), in the same scheme spelling. */
    String encode(String newDecoded) {
        return scheme + " " + Base64.getEncoder().encodeToString(newDecoded.getBytes(StandardCharsets.ISO_8859_1));
    }
}
