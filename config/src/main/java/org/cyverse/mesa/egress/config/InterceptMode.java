package org.cyverse.mesa.egress.config;

/** {@code tls.intercept}. */
public enum InterceptMode {
    /** Only hosts that need it: credentials, method/path rules. */
    AUTO,
    ALL,
    NONE
}
