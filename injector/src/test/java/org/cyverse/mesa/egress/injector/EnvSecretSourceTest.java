package org.cyverse.mesa.egress.injector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code env:NAME}: the variable's value, or an error that names the variable. */
class EnvSecretSourceTest {

    private final EnvSecretSource source = new EnvSecretSource(Map.of("ANTHROPIC_API_KEY", "sk-ant-env-value", "EMPTY", " "));

    @Test
    void readsTheVariable() throws Exception {
        SecretLease lease = source.fetch(SecretRef.parse("env:ANTHROPIC_API_KEY"));

        assertEquals("env", source.scheme());
        assertEquals("sk-ant-env-value", lease.secret().reveal());
        assertNull(lease.expiresAt(), "a variable does not expire");
    }

    @Test
    void missingAndEmptyVariablesAreNamed() {
        SecretUnavailableException missing = assertThrows(SecretUnavailableException.class, () -> source.fetch(SecretRef.parse("env:OPENAI_API_KEY")));
        SecretUnavailableException empty = assertThrows(SecretUnavailableException.class, () -> source.fetch(SecretRef.parse("env:EMPTY")));

        assertEquals("environment variable OPENAI_API_KEY is not set", missing.getMessage());
        assertEquals("environment variable EMPTY is empty", empty.getMessage());
    }
}
