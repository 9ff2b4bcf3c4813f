package org.cyverse.mesa.egress.allowlist;

import java.util.Locale;

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

    /**
     * The reasons an allow-list can give, and only those: the proxy's whole vocabulary (the kill
     * switch, credentials, framing, upstream failures, ...) is proxy-core's
     * {@code org.cyverse.mesa.egress.admission.Reason}, which maps each of these to its own value
     * of the same code. The allow-list knows nothing of what the proxy refuses for other causes.
     */
    public enum Reason {
        ALLOWED,
        HOST_NOT_ALLOWED,
        PORT_NOT_ALLOWED,
        METHOD_NOT_ALLOWED,
        PATH_NOT_ALLOWED;

        private final String code = name().toLowerCase(Locale.ROOT);

        /** The wire form SPEC.md gives it, e.g. {@code host_not_allowed}. */
        public String code() {
            return code;
        }
    }

    public boolean allowed() {
        return outcome == Outcome.ALLOW;
    }
}
