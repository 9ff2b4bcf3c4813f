package org.cyverse.mesa.egress.tls;

/**
 * The TLS record layer's numbers the proxy reads before any handshake is its own (RFC 8446
 * section 5.1, appendix B.3): the ClientHello's server name, a HelloRetryRequest in a tunnel.
 */
public final class TlsRecords {

    /** content type (1), legacy_record_version (2), length (2). */
    public static final int HEADER = 5;
    /** The largest plaintext record: 2^14 bytes. */
    public static final int MAX_LENGTH = 1 << 14;
    /** ContentType change_cipher_spec. */
    public static final int CHANGE_CIPHER_SPEC = 20;
    /** ContentType handshake. */
    public static final int HANDSHAKE = 22;
    /** HandshakeType client_hello. */
    public static final int CLIENT_HELLO = 1;
    /** HandshakeType server_hello (a HelloRetryRequest is one, with a fixed random). */
    public static final int SERVER_HELLO = 2;

    private TlsRecords() {}
}
