package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamLink;

/** A WebSocket an allowed request asks for: what its session needs once the upstream accepts. */
public record WebSocketOpening(ProxyState state, Destination destination, WebSocketOutbound.Plan plan) {
    /** The opening {@code request} asks for, or {@code null} when it is no WebSocket handshake. */
    public static WebSocketOpening of(HttpRequest request, Verdict verdict, ProxyState state) {
        return WebSocketUpgrade.requested(request)
                ? new WebSocketOpening(state, verdict.destination(), WebSocketOutbound.Plan.of(verdict.outgoing(), state)) : null;
    }

    /**
     * Hands the client connection (whose client handler {@code ctx} is) and {@code upstream} to
     * a new session: frames can be written both ways first, then the {@code 101} goes to the
     * client, then both pipelines are rewired and read.
     */
    public void open(ProxyContext proxy, ChannelHandlerContext ctx, Exchange exchange, UpstreamLink upstream, FullHttpResponse accepted,
            EchoScrubber echo) {
        Channel client = ctx.channel();
        upstream.handOver();
        WebSocketPipelines.webSocketEncoders(client.pipeline(), upstream.channel.pipeline());
        WebSocketSession session = new WebSocketSession(proxy, state, exchange, destination, client, upstream.channel, plan, echo);
        ctx.writeAndFlush(accepted).addListener(f -> {
            if (!f.isSuccess()) {
                session.gone(WebSocketOwner.Side.CLIENT);
            }
        });
        WebSocketPipelines.toWebSocket(client.pipeline(), upstream.channel.pipeline(), session, plan.maxMessageBytes(),
                state.config().limits().websocketIdleTimeout().toMillis());
        session.start();
    }
}
