package org.cyverse.mesa.egress.injector.sigv4;

/** Why a signed request cannot be re-signed. The message never holds a key or a signature. */
final class SigV4Problem extends Exception {

    /** What the client should hear. */
    enum Kind {
        /** The signature's own syntax is broken (400). */
        MALFORMED,
        /** Signed in a way the proxy does not re-sign (403 sigv4_unsupported); the message names the client setting. */
        UNSUPPORTED,
        /** The client's signature is not the sentinel key's over this request (403 sigv4_signature_mismatch). */
        BAD_SIGNATURE
    }

    private final Kind kind;

    SigV4Problem(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    Kind kind() {
        return kind;
    }
}
