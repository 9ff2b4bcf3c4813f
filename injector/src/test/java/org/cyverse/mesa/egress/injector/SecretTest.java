package org.cyverse.mesa.egress.injector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.junit.jupiter.api.Test;

/** A secret that reaches a log line, a string or an exception shows as redacted, never as its value. */
class SecretTest {

    private static final String VALUE = "sk-ant-api03-secret-value-0001";

    @Test
    void everyWayOfTurningASecretIntoTextIsRedacted() {
        Secret secret = Secret.of(VALUE);
        Exception inMessage = new IllegalStateException("could not use " + secret);
        SecretLease lease = new SecretLease(secret, Instant.EPOCH, "v1");

        List<String> texts = List.of(secret.toString(), String.valueOf(secret), "key=" + secret,
                String.format("%s", secret), inMessage.getMessage(), lease.toString(), List.of(secret).toString());
        for (String text : texts) {
            Leaks.assertClean(text, VALUE);
        }
        assertEquals("Secret[redacted]", secret.toString());
        assertEquals(VALUE, secret.reveal(), "reveal() is the one way to the value");
    }

    @Test
    void requestAndInjectionRecordsDoNotPrintHeadersOrQuery() throws Exception {
        OutgoingRequest request = new OutgoingRequest(true, Destination.parse("api.example.com", 443), "GET",
                "/v1?key=" + VALUE, List.of(Map.entry("x-api-key", VALUE)));
        Injection injection = new Injection(Injection.Outcome.INJECTED, "c", "/v1?key=" + VALUE,
                List.of(Map.entry("x-api-key", VALUE)), Map.of("s", Secret.of(VALUE)),
                List.of(new Injection.Applied("c", List.of("header x-api-key set"))), "injected c", null);

        Leaks.assertClean(request.toString(), VALUE);
        Leaks.assertClean(injection.toString(), VALUE);
    }

    @Test
    void equalValuesAreEqualSecrets() {
        Secret a = Secret.of(VALUE);
        Secret b = Secret.of(new String(VALUE.toCharArray()));

        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, Secret.of(VALUE + "x"));
        assertNotEquals(a, Secret.of(VALUE.substring(1)));
        assertFalse(a.equals(VALUE), "a secret is not equal to its text");
    }

    @Test
    void hashCodeIsNotTheValuesStringHash() {
        // A String hash of a short secret can be inverted by trying candidates; a keyed one cannot.
        for (String v : List.of("a", "ab", "1234", VALUE)) {
            assertNotEquals(v.hashCode(), Secret.of(v).hashCode(), v);
        }
    }

    @Test
    void emptyOrMissingValuesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Secret.of(""));
        assertThrows(NullPointerException.class, () -> Secret.of(null));
    }
}
