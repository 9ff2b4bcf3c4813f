package org.cyverse.mesa.egress.injector;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Asserts that a text meant for people (a detail, an exception message) holds no secret value in any common spelling. */
final class Leaks {

    private Leaks() {}

    static void assertClean(String text, String... secrets) {
        if (text == null) {
            return;
        }
        for (String secret : secrets) {
            assertFalse(text.contains(secret), () -> "\"" + text + "\" holds a secret value");
            assertFalse(text.contains(URLEncoder.encode(secret, StandardCharsets.UTF_8)), () -> "\"" + text + "\" holds a secret, URL-encoded");
            assertFalse(text.contains(Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8))),
                    () -> "\"" + text + "\" holds a secret, base64-encoded");
        }
    }
}
