package org.cyverse.mesa.egress.proxy.body;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.StreamReplacer;

/**
 * Streams a body (or a WebSocket message) through a {@link StreamReplacer} or a {@link BodyCheck} that rewrites, chunk by chunk: the
 * replacer holds back at most one pattern's length, the re-signer one aws-chunked chunk, so memory
 * stays bounded whatever the body's size.
 */
public final class BodyRewriting {

    private BodyRewriting() {}

    /** A replacer for request bodies of credentials that opted in: each sentinel becomes its secret. */
    public static StreamReplacer sentinelsToSecrets(Map<String, Secret> substitution) {
        Map<byte[], byte[]> replacements = new HashMap<>();
        substitution.forEach((sentinel, secret) -> replacements.put(sentinel.getBytes(StandardCharsets.UTF_8),
                secret.reveal().getBytes(StandardCharsets.UTF_8)));
        return new StreamReplacer(replacements);
    }

    /** Rewrites one chunk; consumes (releases) {@code content} and returns a new chunk. */
    static HttpContent rewrite(HttpContent content, StreamReplacer replacer) {
        return rewrite(content, new Transform<RuntimeException>() {
            @Override
            public byte[] feed(byte[] in) {
                return replacer.feed(in, 0, in.length);
            }

            @Override
            public byte[] finish() {
                return replacer.finish();
            }
        });
    }

    /**
     * Rewrites one frame of a WebSocket message as {@link #rewrite(HttpContent, StreamReplacer)}
     * rewrites a chunk: the message's last frame also carries what the replacer held back. Consumes
     * (releases) {@code frame}; the new frame keeps its type and flags.
     */
    public static WebSocketFrame rewrite(WebSocketFrame frame, StreamReplacer replacer) {
        try {
            ByteBuf in = frame.content();
            byte[] out = replacer.feed(ByteBufUtil.getBytes(in, in.readerIndex(), in.readableBytes(), true), 0, in.readableBytes());
            return frame.replace(frame.isFinalFragment() ? Unpooled.wrappedBuffer(out, replacer.finish()) : Unpooled.wrappedBuffer(out));
        } finally {
            frame.release();
        }
    }

    /**
     * One chunk as a credential kind's {@link BodyCheck} rewrites it (re-signed aws-chunked
     * signatures); consumes (releases) {@code content} when the check rewrites, else returns it.
     */
    static HttpContent rewrite(HttpContent content, BodyCheck check) throws BodyCheck.Refused {
        if (!check.rewrites()) {
            return content;
        }
        boolean last = content instanceof LastHttpContent;
        return rewrite(content, new Transform<BodyCheck.Refused>() {
            @Override
            public byte[] feed(byte[] in) throws BodyCheck.Refused {
                return check.rewrite(in, last);
            }

            @Override
            public byte[] finish() {
                return new byte[0];
            }
        });
    }

    /** A body's bytes in, the bytes ready to go on out; at the body's end, what it still held. */
    private interface Transform<E extends Exception> {
        byte[] feed(byte[] in) throws E;

        byte[] finish() throws E;
    }

    private static <E extends Exception> HttpContent rewrite(HttpContent content, Transform<E> transform) throws E {
        try {
            ByteBuf in = content.content();
            byte[] out = transform.feed(ByteBufUtil.getBytes(in, in.readerIndex(), in.readableBytes(), true));
            if (content instanceof LastHttpContent) {
                byte[] tail = transform.finish();
                DefaultLastHttpContent last = new DefaultLastHttpContent(Unpooled.wrappedBuffer(out, tail));
                last.trailingHeaders().set(((LastHttpContent) content).trailingHeaders());
                return last;
            }
            return new DefaultHttpContent(Unpooled.wrappedBuffer(out));
        } finally {
            content.release();
        }
    }
}
