package org.cyverse.mesa.egress.proxy.body;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The last byte of a scanned request body with a {@code Content-Length}, held back until the
 * body's end has been scanned. From HTTP/1.1 the decoder's last chunk carries the body's final
 * bytes, so the upstream never has the whole body before the scan has seen its end. From HTTP/2
 * the end (END_STREAM) may come in a frame of its own, after the bytes that complete the length:
 * sent on at once, those would let an HTTP/1.1 upstream take the request as whole before a
 * finding that only the scan's end makes (the last bytes of a content coding, an escape a view
 * held) could cut it. Held, the request is one byte short until then, and a refusal's reset
 * leaves it incomplete. Confined to the client's event loop.
 */
final class LengthEndHold {

    private long left;
    private ByteBuf held;

    /** @param contentLength the body's length, or -1 when there is none to watch (chunked, rewritten, not scanned) */
    LengthEndHold(long contentLength) {
        this.left = contentLength;
    }

    /** {@code content} as it may go upstream now; consumes it. */
    HttpContent apply(HttpContent content) {
        if (left < 0) {
            return content;
        }
        if (content instanceof LastHttpContent last) {
            if (held == null) {
                return content;
            }
            LastHttpContent whole = new DefaultLastHttpContent(Unpooled.wrappedBuffer(held, last.content().retain()));
            whole.trailingHeaders().set(last.trailingHeaders());
            held = null;
            last.release();
            return whole;
        }
        ByteBuf bytes = content.content();
        int n = bytes.readableBytes();
        left -= n;
        if (left != 0 || n == 0) {
            return content;
        }
        held = bytes.retainedSlice(bytes.readerIndex() + n - 1, 1);
        HttpContent rest = new DefaultHttpContent(bytes.retainedSlice(bytes.readerIndex(), n - 1));
        content.release();
        return rest;
    }

    /** Releases the byte held, if any (the exchange ended first). */
    void close() {
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
