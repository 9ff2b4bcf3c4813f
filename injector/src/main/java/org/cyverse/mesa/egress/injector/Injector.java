package org.cyverse.mesa.egress.injector;

import java.util.List;

/**
 * Decides, per request, which credential applies and rewrites the request for it (SPEC.md step 5):
 * <ul>
 *   <li>a real secret value anywhere in the request (header values, Basic credentials, path,
 *       query): {@link Injection.Outcome#SECRET_LEAK};
 *   <li>a sentinel of credential C (in a header value, inside Basic credentials, in the path or
 *       the query) and the destination outside C's scope ({@code hosts}, {@code ports},
 *       {@code methods}, {@code paths}): {@link Injection.Outcome#MISMATCH};
 *   <li>over plain http: a sentinel of a credential without {@code allow_plaintext}:
 *       {@link Injection.Outcome#PLAINTEXT}; a request without sentinels goes out unchanged,
 *       no credential is ever added;
 *   <li>a credential in scope with no current value: {@link Injection.Outcome#UNAVAILABLE};
 *   <li>otherwise every credential in scope is applied: its sentinels replaced by its secret
 *       (Basic credentials decoded, replaced, re-encoded), its {@code header} set to its
 *       {@code format} with the secret, overwriting the client's value.
 * </ul>
 * Pure apart from reading the store's current values; thread-safe.
 */
public final class Injector {

    public Injector(List<CredentialSpec> credentials, CredentialStore store) {
        throw new UnsupportedOperationException("TODO");
    }

    public Injection apply(OutgoingRequest request) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Whether any credential's scope covers this host and port (the proxy intercepts those under {@code auto}). */
    public boolean hasCredentialFor(org.cyverse.mesa.egress.allowlist.Destination destination) {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * A replacer for responses: every current secret value becomes its credential's sentinel (or
     * {@code [redacted:NAME]} when it has none), so an upstream that echoes a key does not hand
     * it to the agent.
     */
    public StreamReplacer responseScrubber() {
        throw new UnsupportedOperationException("TODO");
    }

    /** A header value with every current secret replaced as {@link #responseScrubber()} does. */
    public String scrubHeaderValue(String value) {
        throw new UnsupportedOperationException("TODO");
    }
}
