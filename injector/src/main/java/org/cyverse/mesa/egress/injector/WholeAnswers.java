package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Map;

/**
 * A request the proxy put a secret into asks for the whole answer: its {@code Range} and
 * {@code If-Range} fields go (RFC 9110 section 14.2: a server may always answer a range request
 * with the whole representation, so every client copes).
 *
 * <p>The threat: on a credential's own host an endpoint that reflects the request (an error page,
 * a debug echo, content stored through a substituted path) asked for {@code bytes=0-7},
 * {@code 8-15}, ... answers pieces each shorter than the secret, which the scrubbing can never
 * match, and the agent joins them into the real value. Answered whole, the echo holds the secret
 * whole, and it is scrubbed. Kinds that put no secret value on the request (SigV4 re-signing sends
 * a signature, never the key) keep their ranges: object storage's ranged reads answer the object,
 * not the request.
 */
public final class WholeAnswers {

    private WholeAnswers() {}

    /** Removes, in place, every {@code Range} and {@code If-Range} field; returns whether there was one. */
    public static boolean ask(List<Map.Entry<String, String>> headers) {
        return headers.removeIf(h -> h.getKey().equalsIgnoreCase("range") || h.getKey().equalsIgnoreCase("if-range"));
    }

    /** The action {@code check} and the audit name it by. */
    public static final String ACTION = "Range removed (an injected secret is answered whole, never in pieces)";
}
