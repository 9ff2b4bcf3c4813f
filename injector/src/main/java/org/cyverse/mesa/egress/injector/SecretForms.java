package org.cyverse.mesa.egress.injector;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.cyverse.mesa.egress.injector.scan.EncodedForms;

/**
 * The spellings of a secret that an upstream can hand back to the agent, each paired with the
 * same spelling of its stand-in (the sentinel, or {@code [redacted:NAME]}), for response
 * scrubbing. The proxy itself writes a secret in other forms than its plain text: percent-encoded
 * in a path or query ({@link HeaderRewrite#replaceInUri}), and an upstream that echoes a request
 * commonly does so in a JSON document, escaped. Each form is a literal the response scrubber
 * replaces; the Basic credentials the proxy wrote are {@link EmittedForms}.
 */
final class SecretForms {

    private SecretForms() {}

    /** {@code secret}'s forms (its plain text first) to {@code standIn}'s same forms. */
    static Map<String, String> of(String secret, String standIn) {
        Map<String, String> forms = new LinkedHashMap<>();
        forms.put(secret, standIn);
        String encoded = PercentText.encode(secret);
        add(forms, encoded, PercentText.encode(standIn));
        // RFC 3986 section 2.1: hex digits in either case are the same octet; servers that
        // re-encode a URI (a redirect's Location) often use lowercase.
        add(forms, lowerHex(encoded), lowerHex(PercentText.encode(standIn)));
        add(forms, json(secret, false), json(standIn, false));
        // Some encoders (PHP's json_encode, many Java ones) also escape the solidus.
        add(forms, json(secret, true), json(standIn, true));
        return forms;
    }

    /**
     * The encoded spellings in which a hostile answer could hand a secret back for the client to
     * decode (issue 40: an echo of the whole request as base64, as hex, as UTF-16 text), each with
     * what it becomes. Base64: for each of the three offsets the secret can have inside a longer
     * base64 text and both alphabets, the characters that depend on the secret alone
     * ({@link EncodedForms#base64Fragments}), replaced by as many {@code A}s, so the text around
     * stays aligned and decodes, with zero bytes where the secret was. Hex in both cases and
     * UTF-16LE and BE: the stand-in in the same encoding.
     */
    static Map<String, String> encoded(String secret, String standIn) {
        Map<String, String> forms = new LinkedHashMap<>();
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        for (byte[] fragment : EncodedForms.base64Fragments(bytes)) {
            String text = new String(fragment, StandardCharsets.US_ASCII);
            add(forms, text, "A".repeat(text.length()));
        }
        String hex = HexFormat.of().formatHex(bytes);
        String standInHex = HexFormat.of().formatHex(standIn.getBytes(StandardCharsets.UTF_8));
        add(forms, hex, standInHex);
        add(forms, hex.toUpperCase(Locale.ROOT), standInHex.toUpperCase(Locale.ROOT));
        // UTF-16 as chars: each becomes its own UTF-8 byte(s) in the replacer, NUL included.
        if (ascii(secret) && ascii(standIn)) {
            add(forms, utf16(secret, StandardCharsets.UTF_16LE), utf16(standIn, StandardCharsets.UTF_16LE));
            add(forms, utf16(secret, StandardCharsets.UTF_16BE), utf16(standIn, StandardCharsets.UTF_16BE));
        }
        return forms;
    }

    private static boolean ascii(String text) {
        return text.chars().allMatch(c -> c < 0x80);
    }

    /** {@code text} in {@code charset}, each byte as one char (ISO-8859-1), as the replacer matches bytes; ASCII only. */
    private static String utf16(String text, Charset charset) {
        return new String(text.getBytes(charset), StandardCharsets.ISO_8859_1);
    }

    private static void add(Map<String, String> forms, String form, String standIn) {
        if (!form.isEmpty()) {
            forms.putIfAbsent(form, standIn);
        }
    }

    /** {@code encoded} with the hex digits of each {@code %XX} in lowercase. */
    static String lowerHex(String encoded) {
        StringBuilder sb = new StringBuilder(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            sb.append(c);
            if (c == '%' && i + 2 < encoded.length()) {
                sb.append(encoded.substring(i + 1, i + 3).toLowerCase(Locale.ROOT));
                i += 2;
            }
        }
        return sb.toString();
    }

    /** {@code value} as the inside of a JSON string (RFC 8259 section 7), with or without {@code \/}. */
    static String json(String value, boolean escapeSolidus) {
        StringBuilder sb = new StringBuilder(value.length() + 8);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '/' -> sb.append(escapeSolidus ? "\\/" : "/");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
