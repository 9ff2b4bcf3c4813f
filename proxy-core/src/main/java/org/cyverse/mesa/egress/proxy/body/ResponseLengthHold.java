package org.cyverse.mesa.egress.proxy.body;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.cyverse.mesa.egress.proxy.ProxyState;

/**
 * Gives a scrubbed response its {@code Content-Length} back. Scrubbing may change a body's length
 * (a secret and its sentinel differ), so {@link ResponseFraming} sends such a body chunked; a
 * client then has no length for its progress or its integrity check (pip, npm and git compare
 * it). When the upstream declared a length, this outbound handler holds the scrubbed body, up to
 * {@code limits.scan_hold_bytes} and within {@code limits.scan_hold_total_bytes} for all
 * connections (a budget of its own, apart from the request scans'), and sends head and body with
 * the new length once the body is complete. The bytes are copied into one buffer (a body trickled
 * in tiny chunks costs what it counts) and their budget comes back once they are written. A body
 * that outgrows the hold (a decoded one can), or ends in trailers, leaves chunked as before,
 * from where it is. Each held write's promise succeeds at once, so the exchange keeps reading.
 */
public final class ResponseLengthHold extends ChannelOutboundHandlerAdapter {

    /** A response head whose body may be held: what {@link ForwardExchange} writes instead of the upstream's head. */
    static final class Held extends DefaultHttpResponse {
        private final long limit;
        private final long totalLimit;

        Held(HttpResponse head, long limit, long totalLimit) {
            super(head.protocolVersion(), head.status(), head.headers());
            this.limit = limit;
            this.totalLimit = totalLimit;
        }
    }

    private final HoldBudget budget;
    private HttpResponse head;
    private ByteBuf body;
    private long limit;
    private long totalLimit;
    private long taken;

    public ResponseLengthHold(HoldBudget budget) {
        this.budget = budget;
    }

    /** The head as {@link ForwardExchange} should write it: held when the framing allows, else as it is. */
    public static HttpResponse head(HttpResponse response, ResponseFraming framing, ProxyState state) {
        long limit = state.config().limits().scanHoldBytes();
        if (response instanceof HttpContent || framing.body() == null || framing.declaredLength() < 0 || framing.declaredLength() > limit) {
            return response;
        }
        return new Held(response, limit, state.config().limits().scanHoldTotalBytes());
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof Held held) {
            spill(ctx); // a previous hold left unfinished (it cannot happen on one connection's sequence; be safe)
            head = held;
            body = ctx.alloc().buffer((int) Math.min(held.limit, 64 * 1024), (int) Math.min(held.limit, Integer.MAX_VALUE));
            limit = held.limit;
            totalLimit = held.totalLimit;
            promise.setSuccess();
            return;
        }
        if (head == null || !(msg instanceof HttpContent content)) {
            ctx.write(msg, promise);
            return;
        }
        boolean last = content instanceof LastHttpContent;
        boolean trailers = last && !((LastHttpContent) content).trailingHeaders().isEmpty();
        int bytes = content.content().readableBytes();
        if (trailers || body.readableBytes() + bytes > limit || !budget.take(bytes, totalLimit)) {
            spill(ctx);
            ctx.write(msg, promise);
            return;
        }
        taken += bytes;
        body.writeBytes(content.content());
        ReferenceCountUtil.release(content);
        if (!last) {
            promise.setSuccess();
            return;
        }
        HttpResponse response = head;
        ByteBuf whole = body;
        long written = clear();
        response.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
        HttpUtil.setContentLength(response, whole.readableBytes());
        ctx.write(response);
        ctx.write(new DefaultLastHttpContent(whole), promise).addListener(f -> budget.give(written));
    }

    /** Sends what is held as it was framed (chunked), and stops holding. */
    private void spill(ChannelHandlerContext ctx) {
        if (head == null) {
            return;
        }
        HttpResponse response = head;
        ByteBuf held = body;
        long written = clear();
        ctx.write(response);
        if (held.isReadable()) {
            ctx.write(new DefaultHttpContent(held)).addListener(f -> budget.give(written));
        } else {
            held.release();
            budget.give(written);
        }
    }

    /** Stops holding; the bytes taken from the budget, for the caller to give back once they are written. */
    private long clear() {
        long held = taken;
        taken = 0;
        head = null;
        body = null;
        return held;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (head != null) {
            body.release();
            budget.give(clear());
        }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        handlerRemoved(ctx); // a response cut while held: nothing of it goes out
        ctx.close(promise);
    }
}
