package org.cyverse.mesa.egress.proxy.upstream;

/**
 * What a dial to an upstream yields once TLS chose the protocol: a connection that carries one
 * request at a time ({@link UpstreamLink}, HTTP/1.1), or one that carries each request as a
 * stream of its own ({@link Http2Upstream}). Those two are all there are (not sealed, only so that
 * the interface does not depend on its implementations).
 */
public interface UpstreamConnection {

    /** Closes the connection (an HTTP/2 connection: with GOAWAY, and every stream on it). */
    void close();
}
