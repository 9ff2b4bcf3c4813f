package org.cyverse.mesa.egress.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.HttpConversionUtil;

/**
 * On an HTTP/2 stream, after Netty's frame-to-HTTP/1 codec: the request as the HTTP/1.1 decoder
 * would have produced it, so that one client handler admits both. The codec's own extension
 * fields ({@code x-http2-stream-id}, {@code x-http2-scheme}, ...) are removed, whether it added
 * them or the client sent them (they are no part of the request and would go upstream); a
 * request that came whole (a HEADERS frame that ends the stream) is handed on as a head and its
 * end, as the decoder hands them.
 */
final class Http2Requests extends ChannelInboundHandlerAdapter {

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
                request.headers().remove(name.text());
            }
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
}
