package org.cyverse.mesa.egress.proxy.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.concurrent.PromiseNotifier;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.HttpConversionUtil;

/**
 * On an HTTP/2 stream, beside Netty's frame-to-HTTP/1 codec: the request as the HTTP/1.1 decoder
 * would have produced it, so that one client handler admits both, and the answer as the codec
 * takes it. The codec's own extension
 * fields ({@code x-http2-stream-id}, {@code x-http2-scheme}, ...) are removed, whether it added
 * them or the client sent them (they are no part of the request and would go upstream); a
 * request that came whole (a HEADERS frame that ends the stream) is handed on as a head and its
 * end, as the decoder hands them. An interim answer (a relayed {@code 100 Continue}, a
 * {@code 103}) comes from the upstream's HTTP/1.1 as a head and an empty end; the codec takes it
 * only whole, as one HEADERS frame. A final answer without a body (a 204, a gRPC status in a
 * trailers-only answer) is written whole as well, so that its one HEADERS frame ends the stream
 * (gRPC clients read a HEADERS frame followed by an empty DATA frame as a stream without
 * trailers): the head waits for what comes next, at most until the next flush.
 */
public final class Http2Messages extends ChannelDuplexHandler {

    private boolean interimEnd; // the empty end of an interim answer written whole is still to come
    private HttpResponse head;  // a final head waiting to see whether its end follows at once, empty
    private ChannelPromise headPromise;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            stripExtensions(request.headers());
            if (request instanceof FullHttpRequest full) {
                HttpRequest head = new DefaultHttpRequest(full.protocolVersion(), full.method(), full.uri(), full.headers());
                DefaultLastHttpContent end = new DefaultLastHttpContent(full.content().retain());
                end.trailingHeaders().set(full.trailingHeaders());
                full.release();
                ctx.fireChannelRead(head);
                ctx.fireChannelRead(end);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse head && !(msg instanceof FullHttpResponse) && head.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
            interimEnd = true;
            ctx.write(new DefaultFullHttpResponse(head.protocolVersion(), head.status(), Unpooled.EMPTY_BUFFER, head.headers(),
                    new DefaultHttpHeaders()), promise);
            return;
        }
        if (interimEnd && msg instanceof LastHttpContent end) {
            interimEnd = false;
            end.release();
            promise.setSuccess();
            return;
        }
        if (head != null && msg instanceof LastHttpContent end && !end.content().isReadable() && end.trailingHeaders().isEmpty()) {
            end.release();
            HttpResponse whole = new DefaultFullHttpResponse(head.protocolVersion(), head.status(), Unpooled.EMPTY_BUFFER, head.headers(),
                    new DefaultHttpHeaders());
            ChannelPromise forHead = headPromise;
            head = null;
            ctx.write(whole).addListener(new PromiseNotifier<Void, ChannelFuture>(forHead, promise));
            return;
        }
        writeHead(ctx);
        if (msg instanceof HttpResponse response && !(msg instanceof FullHttpResponse)) {
            head = response;
            headPromise = promise;
            return;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writeHead(ctx);
        ctx.flush();
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        writeHead(ctx);
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (head != null) {
            head = null;
            headPromise.tryFailure(new java.nio.channels.ClosedChannelException());
        }
    }

    /**
     * Removes the HTTP/2 codec's extension fields ({@code x-http2-stream-id}, {@code x-http2-scheme},
     * ...) from a message on a stream, whether the codec added them or the peer sent them: they are
     * no part of the message and must not travel on.
     */
    public static void stripExtensions(HttpHeaders headers) {
        for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
            headers.remove(name.text());
        }
    }

    private void writeHead(ChannelHandlerContext ctx) {
        if (head != null) {
            HttpResponse waiting = head;
            head = null;
            ctx.write(waiting, headPromise);
        }
    }
}
