package org.cyverse.mesa.egress.proxy.body;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The body bytes a {@link RequestBodyGate} holds back, in pages. A chunk of {@value #SMALL} bytes
 * or more is kept as it came; smaller ones are copied into pages of {@value #PAGE} bytes, so that
 * what is held costs what it counts (a body in many tiny chunks would otherwise pin a buffer and an
 * object per chunk). Confined to the client's event loop; {@link #close} releases what is held.
 */
final class HeldPages {

    /** Size of the buffers small held chunks are copied into. */
    static final int PAGE = 16 * 1024;
    /** Chunks smaller than this are copied when held; larger ones are kept as they came. */
    static final int SMALL = 4096;

    private final ArrayDeque<ByteBuf> pages = new ArrayDeque<>();
    private ByteBuf openPage; // the last page, while small chunks may still be copied into it; else null
    private long bytes;
    private boolean sawLast;

    /** Keeps {@code chunk}'s bytes (consumed). */
    void add(HttpContent chunk) {
        try {
            ByteBuf content = chunk.content();
            bytes += content.readableBytes();
            sawLast |= chunk instanceof LastHttpContent;
            if (content.readableBytes() >= SMALL) {
                pages.add(content.retain());
                openPage = null;
                return;
            }
            int from = content.readerIndex();
            int left = content.readableBytes();
            while (left > 0) {
                if (openPage == null || !openPage.isWritable()) {
                    openPage = content.alloc().buffer(PAGE, PAGE);
                    pages.add(openPage);
                }
                int n = Math.min(left, openPage.writableBytes());
                openPage.writeBytes(content, from, n);
                from += n;
                left -= n;
            }
        } finally {
            chunk.release();
        }
    }

    long bytes() {
        return bytes;
    }

    /** Whether the body's end is among what is held. */
    boolean sawLast() {
        return sawLast;
    }

    /** What was held, as chunks in order, each passed through {@code outgoing} (the caller owns them). */
    List<HttpContent> release(UnaryOperator<HttpContent> outgoing) {
        openPage = null;
        List<HttpContent> out = new ArrayList<>(pages.size() + 1);
        ByteBuf page;
        while ((page = pages.poll()) != null) {
            out.add(pages.isEmpty() && sawLast ? outgoing.apply(new DefaultLastHttpContent(page))
                    : outgoing.apply(new DefaultHttpContent(page)));
        }
        if (out.isEmpty() && sawLast) {
            out.add(outgoing.apply(new DefaultLastHttpContent()));
        }
        return out;
    }

    void close() {
        openPage = null;
        ByteBuf page;
        while ((page = pages.poll()) != null) {
            page.release();
        }
    }
}
