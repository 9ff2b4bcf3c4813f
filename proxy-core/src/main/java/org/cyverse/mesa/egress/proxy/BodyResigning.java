package org.cyverse.mesa.egress.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import org.cyverse.mesa.egress.injector.sigv4.ChunkResigner;

/**
 * An aws-chunked body whose chunk signatures are signed again as it streams ({@code aws_sigv4},
 * {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}): each chunk goes on once its data has come and its
 * signature was found the client's, with the real key's in its place. What goes on is only ever
 * whole, checked chunks. Confined to the exchange's event loop.
 */
final class BodyResigning {

    private final ChunkResigner resigner;
    private final String credential;

    BodyResigning(ChunkResigner.Plan plan) {
        this.resigner = plan.start();
        this.credential = plan.credential();
    }

    /** The credential whose real key signs. */
    String credential() {
        return credential;
    }

    /** {@code content}'s bytes as they go on (consumed: released); throws when they cannot be re-signed. */
    HttpContent resign(HttpContent content) throws ChunkResigner.ChunkException {
        try {
            ByteBuf in = content.content();
            byte[] out = resigner.feed(ByteBufUtil.getBytes(in, in.readerIndex(), in.readableBytes(), false), 0, in.readableBytes());
            if (content instanceof LastHttpContent last) {
                resigner.finish();
                DefaultLastHttpContent end = new DefaultLastHttpContent(Unpooled.wrappedBuffer(out));
                end.trailingHeaders().set(last.trailingHeaders());
                return end;
            }
            return new DefaultHttpContent(Unpooled.wrappedBuffer(out));
        } finally {
            content.release();
        }
    }
}
