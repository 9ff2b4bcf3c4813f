package org.cyverse.mesa.egress.proxy.body;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.body.ContentCoding;

/** The request head as it goes upstream: the fields the proxy sets for the destination and the body as it will be sent. */
final class UpstreamHead {

    private UpstreamHead() {}

    /**
     * Sets {@code outgoing}'s {@code Host} for {@code destination}; on a credential's host narrows
     * {@code Accept-Encoding} to the codings the proxy can decode (the answer is read for echoed
     * secrets); and when the body changes length on the way, sends it chunked.
     */
    static void prepare(HttpRequest outgoing, Destination destination, boolean tls, boolean credentialHost, boolean rewrites) {
        // RFC 9112 section 3.2.2: a proxy replaces Host with the authority of the target URI.
        outgoing.headers().set(HttpHeaderNames.HOST, destination.hostField(tls ? 443 : 80));
        if (credentialHost && outgoing.headers().contains(HttpHeaderNames.ACCEPT_ENCODING)) {
            String accepted = ContentCoding.restrictAcceptEncoding(outgoing.headers().get(HttpHeaderNames.ACCEPT_ENCODING));
            if (accepted == null) {
                outgoing.headers().remove(HttpHeaderNames.ACCEPT_ENCODING);
            } else {
                outgoing.headers().set(HttpHeaderNames.ACCEPT_ENCODING, accepted);
            }
        }
        if (rewrites) {
            outgoing.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
            outgoing.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
    }
}
