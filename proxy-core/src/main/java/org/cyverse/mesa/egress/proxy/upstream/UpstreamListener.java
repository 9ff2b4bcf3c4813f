package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.handler.codec.http.HttpObject;

/** What an upstream connection reports to the exchange using it (see {@link UpstreamHandler}). */
public interface UpstreamListener {

    /** A response head or body chunk; the listener owns it. */
    void onResponse(HttpObject msg);

    /** The upstream's read is over: what it produced may go to the client now. */
    void flushResponse();

    /** The upstream closed or failed. */
    void upstreamClosed();

    /** No bytes from the upstream within the idle timeout. */
    void upstreamIdle();

    /** TLS with the upstream failed: its chain or name did not verify, or the handshake broke; {@code cause} says how (may be null). */
    void upstreamTlsFailed(Throwable cause);
}
