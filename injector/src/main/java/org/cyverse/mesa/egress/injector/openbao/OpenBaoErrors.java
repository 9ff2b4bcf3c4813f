package org.cyverse.mesa.egress.injector.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.jopenlibs.vault.VaultException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * OpenBao's {@code {"errors": [...]}} (API docs, "Error response"), made fit for a log line:
 * one line, at most 200 characters, with every credential the call sent cut out. OpenBao does
 * not echo tokens in errors, but a proxy in between might; the scrub costs nothing.
 */
final class OpenBaoErrors {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BODY_MARK = "Response body: ";
    private static final int MAX = 200;

    private OpenBaoErrors() {}

    /** The response body the driver quoted in its exception text, or {@code null}. */
    static byte[] bodyOf(VaultException e) {
        String text = e.getMessage();
        int at = text == null ? -1 : text.indexOf(BODY_MARK);
        return at < 0 ? null : text.substring(at + BODY_MARK.length()).getBytes(StandardCharsets.UTF_8);
    }

    /** The errors, joined with "; ", or "" when the body holds none. */
    static String describe(byte[] body, String[] sent) {
        if (body == null || body.length == 0) {
            return "";
        }
        JsonNode errors;
        try {
            errors = JSON.readTree(body).path("errors");
        } catch (IOException e) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (JsonNode error : errors) {
            if (out.length() > 0) {
                out.append("; ");
            }
            out.append(error.asText());
        }
        String text = out.toString();
        for (String secret : sent) {
            if (secret != null && !secret.isEmpty()) {
                text = text.replace(secret, "[redacted]");
            }
        }
        // OpenBao's multi-error texts hold line breaks and tabs; /readyz and the log want one line.
        text = text.replaceAll("\\p{Cntrl}+", " ").strip();
        return text.length() > MAX ? text.substring(0, MAX) + "..." : text;
    }
}
