package org.cyverse.mesa.egress.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.StreamReplacer;

/**
 * Streams a body through a {@link StreamReplacer}, chunk by chunk: the replacer holds back at most
 * one pattern's length, so memory stays bounded whatever the body's size.
 */
final class BodyRewriting {

    private BodyRewriting() {}

    /** A replacer for request bodies of credentials that opted in: each sentinel becomes its secret. */
    static StreamReplacer sentinelsToSecrets(Map<String, Secret> substitution) {
        Map<byte[], byte[]> replacements = new HashMap<>();
        substitution.forEach((sentinel, secret) -> replacements.put(sentinel.getBytes(StandardCharsets.UTF_8),
                secret.reveal().getBytes(StandardCharsets.UTF_8)));
        return new StreamReplacer(replacements);
    }

    /** Rewrites one chunk; consumes (releases) {@code content} and returns a new chunk. */
    static HttpContent rewrite(HttpContent content, StreamReplacer replacer) {
        try {
            ByteBuf in = content.content();
            byte[] bytes = ByteBufUtil.getBytes(in, in.readerIndex(), in.readableBytes(), true);
            byte[] out = replacer.feed(bytes, 0, bytes.length);
            if (content instanceof LastHttpContent) {
                byte[] tail = replacer.finish();
                ByteBuf buf = Unpooled.wrappedBuffer(out, tail);
                DefaultLastHttpContent last = new DefaultLastHttpContent(buf);
                last.trailingHeaders().set(((LastHttpContent) content).trailingHeaders());
                return last;
            }
            return new DefaultHttpContent(Unpooled.wrappedBuffer(out));
        } finally {
            content.release();
        }
    }
}
