package org.cyverse.mesa.egress.proxy.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Relays bytes of a tunnel from its channel to the peer channel, reading the next chunk only
 * after the previous one was written (auto-read is off on both sides), so a slow reader slows the
 * writer instead of filling the proxy's memory.
 */
public final class RelayHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = Logger.getLogger(RelayHandler.class.getName());

    private final Tunnel tunnel;
    private final boolean fromClient;

    /** Relays for {@code tunnel} from the client's channel ({@code fromClient}) or the upstream's. */
    public RelayHandler(Tunnel tunnel, boolean fromClient) {
        this.tunnel = tunnel;
        this.fromClient = fromClient;
    }

    private Channel peer() {
        return fromClient ? tunnel.upstream : tunnel.client;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        tunnel.bytes(fromClient, ((ByteBuf) msg).readableBytes());
        peer().writeAndFlush(msg).addListener(f -> {
            if (f.isSuccess()) {
                ctx.read();
            } else {
                tunnel.close();
            }
        });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        tunnel.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            tunnel.close();
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(Level.FINE, "tunnel failed", cause);
        tunnel.close();
    }
}
