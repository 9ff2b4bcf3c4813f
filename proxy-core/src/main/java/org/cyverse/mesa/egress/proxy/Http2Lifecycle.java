package org.cyverse.mesa.egress.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * When an HTTP/2 connection with an agent ends without an error: quiet both ways for
 * {@code limits.idle_timeout}, or the proxy draining (a stop). Either closes it through the
 * frame codec in front, whose close is graceful: GOAWAY, then the connection closes once the
 * streams under way are done.
 */
final class Http2Lifecycle extends IdleStateHandler {

    Http2Lifecycle(long idleMillis) {
        super(0, 0, idleMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
        ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt == ProxyContext.DRAIN) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
