package org.cyverse.mesa.egress.launcher;

/**
 * The launcher's exit codes (SPEC.md "Command line"), and its version: what every command
 * returns through {@link Main} without knowing it.
 */
final class Exit {

    /** Success; {@code check}: allowed. */
    static final int OK = 0;
    /** An unexpected failure. */
    static final int FAILURE = 1;
    /** A bad config or bad input. */
    static final int BAD_INPUT = 2;
    /** {@code check}: denied. */
    static final int DENY = 3;

    private Exit() {}

    /** The jar's version, {@code dev} when run from classes. */
    static String version() {
        String v = Exit.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
