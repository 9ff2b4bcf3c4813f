package org.cyverse.mesa.egress.proxy.connection;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * First in every client pipeline, for the connection's whole life: counts open connections
 * ({@code mesa_egress_active_connections}, {@code limits.max_connections}) and registers the
 * channel for draining. A connection over the limit is marked; {@link org.cyverse.mesa.egress.proxy.agent.ClientHandler} answers it
 * 503 {@code overloaded} and closes it.
 */
@ChannelHandler.Sharable
public final class ConnectionGate extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<Boolean> OVER_LIMIT = AttributeKey.valueOf("mesa-egress.over-limit");

    private final ProxyContext proxy;

    /** One gate for every connection of {@code proxy}. */
    public ConnectionGate(ProxyContext proxy) {
        this.proxy = proxy;
    }

    /** Whether the gate marked {@code channel}: over {@code limits.max_connections}, or come while the proxy drains. */
    public static boolean overLimit(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(OVER_LIMIT).get());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        proxy.metrics.connectionOpened();
        int max = proxy.state().config().limits().maxConnections();
        if (proxy.connections.incrementAndGet() > max || proxy.draining) {
            ctx.channel().attr(OVER_LIMIT).set(Boolean.TRUE);
        } else {
            proxy.clients.add(ctx.channel());
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        proxy.connections.decrementAndGet();
        proxy.metrics.connectionClosed();
        ctx.fireChannelInactive();
    }
}
