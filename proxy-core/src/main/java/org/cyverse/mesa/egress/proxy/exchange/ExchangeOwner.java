package org.cyverse.mesa.egress.proxy.exchange;

import io.netty.handler.codec.http.FullHttpResponse;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamLink;

/**
 * What a forwarded exchange or a tunnel being set up tells the connection that owns it, instead
 * of calling back into the client handler's class. Called on the client channel's event loop.
 */
public interface ExchangeOwner {

    /** The exchange can take the next chunk of the request body now. */
    void bodyWanted();

    /**
     * The exchange is over.
     *
     * @param keep the upstream connection to keep for the next request, or {@code null}
     * @param closeClient whether the client connection ends here
     */
    void completed(UpstreamLink keep, boolean closeClient);

    /** The exchange failed before an answer was sent: answer {@code refusal}; with {@code close} the connection ends after it. */
    void refuse(Exchange exchange, Refusal refusal, boolean close);

    /**
     * The upstream accepted a WebSocket: {@code accepted} is the {@code 101} for the client, and
     * the connection is a {@link org.cyverse.mesa.egress.proxy.websocket.WebSocketSession}'s from
     * now on, with {@code upstream}; {@code echo} is the scrubbing as the handshake left (with the
     * forms it was written in).
     */
    void upgraded(Exchange exchange, UpstreamLink upstream, FullHttpResponse accepted, EchoScrubber echo);
}
