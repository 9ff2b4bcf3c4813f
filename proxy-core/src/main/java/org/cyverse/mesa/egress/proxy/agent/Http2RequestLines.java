package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.proxy.http.RejectedHead;

/**
 * On an HTTP/2 stream, before Netty's frame-to-HTTP/1 codec: a request whose {@code :method} or
 * {@code :path} an HTTP/1.1 request line could not carry is refused 400 here, as the HTTP/1.1
 * head scanner refuses it ({@link RejectedHead}, answered by the client handler), and never
 * converted: sent on as HTTP/1.1 it would read one way to the policy and another to a lenient
 * upstream (and the codec, given a method that is no token, throws after allocating).
 */
final class Http2RequestLines extends ChannelInboundHandlerAdapter {

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2HeadersFrame frame && frame.headers().method() != null) {
            String bad = problem(String.valueOf(frame.headers().method()), String.valueOf(frame.headers().path()));
            if (bad != null) {
                ReferenceCountUtil.release(msg);
                ctx.fireChannelRead(new RejectedHead(Reason.BAD_REQUEST, Refusals.Problem.MALFORMED_HEAD, bad, null));
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * What HPACK lets through that an HTTP/1.1 request line may not carry (RFC 9112 section 3):
     * a {@code :method} that is not a token, a {@code :path} with a space, a tab, a control byte or
     * a byte past ASCII; {@code null} when the line is clean.
     */
    static String problem(String method, String target) {
        if (method.isEmpty()) {
            return "an empty :method";
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (c > 0x7e || c <= 0x20 || "\"(),/:;<=>?@[\\]{}".indexOf(c) >= 0) {
                return "a :method that is not a token";
            }
        }
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return "a :path with a space, a control character or a byte outside ASCII (send it percent-encoded)";
            }
        }
        return null;
    }
}
