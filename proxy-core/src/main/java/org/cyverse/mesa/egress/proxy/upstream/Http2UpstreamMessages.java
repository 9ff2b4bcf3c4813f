package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import org.cyverse.mesa.egress.proxy.http.Http2Messages;

/**
 * On a stream of an upstream HTTP/2 connection, beside Netty's frame-to-HTTP/1 codec: the answer
 * as the HTTP/1.1 client codec would have produced it, so that one exchange relays both. The
 * codec's extension fields ({@code x-http2-stream-id}, ...) are removed, whether it added them or
 * the upstream sent them; an answer that came whole (a HEADERS frame that ends the stream: a 204,
 * a gRPC error with its status in the headers) is handed on as a head and its end, the head with
 * the length it has (none, which HTTP/1.1 reads as "until the close", would end the client's
 * connection), except where no length belongs (1xx, 204, 304, an answer to HEAD). A body shorter
 * or longer than its {@code Content-Length} (Netty checks a length only once DATA came) is no
 * end: the stream is closed and the exchange learns the upstream failed, as a cut HTTP/1.1 body
 * would tell it, so that no client waits for bytes that never come. Once the final answer has
 * ended, the stream's close is its normal end, not an upstream gone away: it is not passed on.
 * Toward the upstream, {@code TE: trailers} is said when the client said it (HTTP/1.1 strips it
 * as hop-by-hop; HTTP/2 allows that one value).
 */
final class Http2UpstreamMessages extends ChannelDuplexHandler {

    private final boolean teTrailers;
    private boolean headRequest;
    private boolean finalHead; // the final (non-1xx) head has been handed on
    private boolean ended;     // and its end
    private long declared = -1; // the final head's Content-Length where one must hold, else -1
    private long received;

    Http2UpstreamMessages(boolean teTrailers) {
        this.teTrailers = teTrailers;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpRequest request) {
            headRequest = HttpMethod.HEAD.equals(request.method());
            if (teTrailers) {
                request.headers().set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
            }
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpResponse response) {
            Http2Messages.stripExtensions(response.headers());
            int status = response.status().code();
            boolean interim = response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
            boolean lengthless = interim || headRequest || status == 204 || status == 304;
            finalHead |= !interim;
            if (!lengthless) {
                declared = HttpUtil.getContentLength(response, -1L);
            }
            if (msg instanceof FullHttpResponse full) {
                HttpResponse head = new DefaultHttpResponse(full.protocolVersion(), full.status(), full.headers());
                if (!lengthless && declared < 0 && !HttpUtil.isTransferEncodingChunked(head)) {
                    HttpUtil.setContentLength(head, full.content().readableBytes());
                    declared = full.content().readableBytes();
                }
                DefaultLastHttpContent end = new DefaultLastHttpContent(full.content().retain());
                end.trailingHeaders().set(full.trailingHeaders());
                full.release();
                ctx.fireChannelRead(head);
                fireContent(ctx, end);
                return;
            }
            ctx.fireChannelRead(msg);
            return;
        }
        if (msg instanceof LastHttpContent last) {
            Http2Messages.stripExtensions(last.trailingHeaders());
            fireContent(ctx, last);
            return;
        }
        if (finalHead && msg instanceof HttpContent content) {
            received += content.content().readableBytes();
        }
        ctx.fireChannelRead(msg);
    }

    private void fireContent(ChannelHandlerContext ctx, LastHttpContent end) {
        if (finalHead && declared >= 0 && received + end.content().readableBytes() != declared) {
            end.release();
            ctx.close(); // not ended: the exchange hears of an upstream that failed mid-answer
            return;
        }
        ended |= finalHead;
        ctx.fireChannelRead(end);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!ended) {
            ctx.fireChannelInactive();
        }
    }

}
