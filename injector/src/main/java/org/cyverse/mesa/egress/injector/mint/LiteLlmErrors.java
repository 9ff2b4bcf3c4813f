package org.cyverse.mesa.egress.injector.mint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.cyverse.mesa.egress.injector.Secret;

/**
 * The message of a LiteLLM error answer, for a log line: {@code {"error": {"message": ...}}}
 * (LiteLLM's {@code ProxyException}) or FastAPI's {@code {"detail": ...}}, abbreviated, with the
 * master key scrubbed should the gateway quote it.
 */
final class LiteLlmErrors {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX = 200;

    private LiteLlmErrors() {}

    static String message(String body, Secret master, Secret key) {
        String text = body == null ? "" : body;
        try {
            JsonNode tree = JSON.readTree(text);
            JsonNode message = tree.path("error").path("message");
            if (message.isMissingNode()) {
                message = tree.path("detail");
            }
            if (!message.isMissingNode()) {
                text = message.isTextual() ? message.asText() : message.toString();
            }
        } catch (IOException e) {
            // not JSON: the text as it is
        }
        text = LiteLlmMinter.scrub(text, master, key).replaceAll("[\\r\\n\\t]+", " ").strip();
        if (text.isEmpty()) {
            return "(no message)";
        }
        return text.length() <= MAX ? "(" + text + ")" : "(" + text.substring(0, MAX) + "...)";
    }
}
