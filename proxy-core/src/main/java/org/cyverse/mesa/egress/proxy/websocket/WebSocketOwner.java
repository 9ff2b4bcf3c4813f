package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.util.List;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;

/**
 * What each direction of a WebSocket ({@link WebSocketOutbound}, {@link WebSocketInbound}) tells
 * the {@link WebSocketSession} that owns both, instead of calling back into its class. Called on
 * the client channel's event loop.
 */
interface WebSocketOwner {

    /** A side of the connection, and who ended it, for the audit record. */
    enum Side {
        CLIENT, UPSTREAM, PROXY;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Writes {@code frames} (consumed) to the other side of {@code from}, then reads the next frame from {@code from}. */
    void relay(Side from, List<WebSocketFrame> frames);

    /** Reads the next frame from {@code side} without writing anything (a message still being held). */
    void readMore(Side side);

    /** A whole message went the way of {@code from}. */
    void messageRelayed(Side from);

    /**
     * Ends the connection from the proxy's side for {@code why} ({@code null}: not a refusal): the
     * client gets {@code code} with {@code reason} (none when {@code null}), the upstream a 1001.
     */
    void end(Refusal why, Side by, WebSocketCloseStatus code, String reason);

    ProxyContext proxy();

    ProxyState state();

    Exchange exchange();

    Destination destination();
}
