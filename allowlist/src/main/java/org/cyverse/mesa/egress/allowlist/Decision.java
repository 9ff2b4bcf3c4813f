package org.cyverse.mesa.egress.allowlist;

/**
 * The answer of {@link Policy#decide}.
 *
 * @param outcome allow, deny, or allow only where the proxy can inspect method and path
 * @param reason {@link Reason#ALLOWED} when allowed, otherwise the refusal's reason code
 * @param rule a short description of the rule that matched (e.g. {@code "class N1: github.com"},
 *     {@code "allow[0]: *.example.org"}, {@code "deny[1]: uploads.example.org"}), or {@code null}
 *     when none did
 */
public record Decision(Outcome outcome, Reason reason, String rule) {

    /** What the proxy does. */
    public enum Outcome {
        ALLOW,
        DENY,
        /**
         * A CONNECT (method and path unknown) to a destination whose matching rules restrict
         * method or path: allowed only if the proxy terminates TLS and decides each request again.
         */
        NEEDS_INSPECTION
    }

    public boolean allowed() {
        return outcome == Outcome.ALLOW;
    }
}
