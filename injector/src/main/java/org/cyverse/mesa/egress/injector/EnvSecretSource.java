package org.cyverse.mesa.egress.injector;

import java.util.Map;

/**
 * Secrets in environment variables of the proxy process (scheme {@code env}, {@code env:NAME}).
 * The variables are handed over as a map (the proxy passes {@code System.getenv()}), so tests
 * need no real environment. A variable does not change while the process runs: no expiry, no
 * refresh.
 */
public final class EnvSecretSource implements SecretSource {

    private final Map<String, String> environment;

    /** @param environment the variables, e.g. {@code System.getenv()} */
    public EnvSecretSource(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    @Override
    public String scheme() {
        return "env";
    }

    @Override
    public SecretLease fetch(SecretRef ref) throws SecretUnavailableException {
        String value = environment.get(ref.location());
        if (value == null) {
            throw new SecretUnavailableException("environment variable " + ref.location() + " is not set");
        }
        if (value.isBlank()) {
            throw new SecretUnavailableException("environment variable " + ref.location() + " is empty");
        }
        return new SecretLease(Secret.of(value), null, null);
    }
}
