package org.cyverse.mesa.egress.injector.scan;

/**
 * What one needle of a {@link ScanPlan} stands for: a credential's value or its sentinel, and the
 * encoding the needle is in. Holds names only, never the value.
 *
 * @param credential the credential's name
 * @param kind a real secret (refused anywhere) or a sentinel headed outside its credential's scope
 * @param form how the value was spelled: {@code "as is"}, {@code "base64"}, {@code "hex"} or {@code "UTF-16"}
 */
public record Finding(String credential, Kind kind, String form) {

    /** What a hit means for the request. */
    public enum Kind {
        /** A real secret value: 403 {@code secret_leak}. */
        SECRET,
        /** A sentinel whose credential does not cover this request: 403 {@code credential_endpoint_mismatch}. */
        SENTINEL
    }
}
