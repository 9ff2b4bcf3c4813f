package org.cyverse.mesa.egress.proxy.http;

import io.netty.channel.ChannelHandlerContext;
import java.util.function.BooleanSupplier;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.proxy.Drain;

/**
 * When an HTTP/2 connection ends without an error: quiet both ways for
 * {@code limits.idle_timeout}, or the proxy draining (a stop). Either closes it through the
 * frame codec in front, whose close is graceful: GOAWAY, then the connection closes once the
 * streams under way are done. An agent's connection closes when it is quiet; an upstream's only
 * when no stream is open on it too, since a stream may wait longer than that for its answer to
 * begin ({@code limits.upstream_first_byte_timeout}, which the stream watches).
 */
public final class Http2Lifecycle extends IdleStateHandler {

    private final BooleanSupplier streamsOpen;

    /** @param streamsOpen for a connection to an upstream, whether a stream is open on it; {@code null} for an agent's */
    public Http2Lifecycle(long idleMillis, BooleanSupplier streamsOpen) {
        super(0, 0, idleMillis, TimeUnit.MILLISECONDS);
        this.streamsOpen = streamsOpen;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
        if (streamsOpen == null || !streamsOpen.getAsBoolean()) {
            ctx.close();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt == Drain.DRAIN) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
