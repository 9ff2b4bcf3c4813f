package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.logging.Level;
import java.util.logging.Logger;

/** The end of an upstream pipeline: hands responses to the {@link UpstreamListener} using the connection. */
public final class UpstreamHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = Logger.getLogger(UpstreamHandler.class.getName());

    /** The exchange using this connection, or {@code null} while it is parked. */
    public UpstreamListener listener;
    /** {@code limits.upstream_first_byte_timeout}: while a request waits for its answer to begin, idle time is not yet a timeout. */
    long firstByteNanos;
    /** When the exchange now using the connection began (nanoTime), until its first response byte; 0 otherwise. */
    private long awaitingSince;

    /** A request goes out now: until its answer begins, the first-byte timeout applies instead of the idle one. */
    public void awaitFirstByte() {
        awaitingSince = System.nanoTime();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (listener == null) {
            // Nothing may arrive on a parked connection; what does cannot be matched to a request.
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        awaitingSince = 0;
        listener.onResponse((HttpObject) msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (listener != null) {
            listener.flushResponse();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (listener != null) {
            listener.upstreamClosed();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent && !((SslHandshakeCompletionEvent) evt).isSuccess()) {
            if (listener != null) {
                listener.upstreamTlsFailed(((SslHandshakeCompletionEvent) evt).cause());
            }
            ctx.close();
            return;
        }
        if (evt instanceof IdleStateEvent) {
            if (listener != null && awaitingSince != 0 && System.nanoTime() - awaitingSince < firstByteNanos) {
                return; // a slow answer (an LLM completion) that has not begun: checked again after the next idle period
            }
            if (listener != null) {
                listener.upstreamIdle();
            } else {
                ctx.close();
            }
            return;
        }
        // Anything else on: on a stream, Netty's multiplexer hands the upstream's GOAWAY (a buffer)
        // and RST_STREAM here; the pipeline's end releases them.
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(Level.FINE, "upstream connection failed", cause);
        ctx.close();
    }
}
