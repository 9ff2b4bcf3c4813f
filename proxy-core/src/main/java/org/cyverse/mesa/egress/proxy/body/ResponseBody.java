package org.cyverse.mesa.egress.proxy.body;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import java.util.Locale;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.body.ContentCoding;
import org.cyverse.mesa.egress.injector.StreamReplacer;

/**
 * A response body on its way to the client with every secret the upstream echoes replaced by its
 * sentinel: decoded first when it came in a content coding (it then goes to the client in
 * identity: the client is on loopback, where size costs nothing, and re-encoding would cost CPU
 * for no one), streamed chunk by chunk, each chunk leaving as soon as it is decoded and scrubbed
 * (a server-sent event is not held back beyond a partial match). A body of length-prefixed
 * messages (gRPC's, protobuf's) cannot change length without breaking them: one that quotes a
 * secret is cut before the chunk that holds it, never sent with a wrong length. Confined to one
 * event loop.
 */
public final class ResponseBody implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ResponseBody.class.getName());

    private final StreamReplacer scrubber;
    private final ContentCoding.Decoding decoding;
    private final boolean framed;
    private String cut;

    /**
     * @param scrubber the secrets to replace
     * @param decoding the decoder of the upstream's coding, or {@code null} for identity
     * @param framed whether the body is length-prefixed messages, which a replacement would break
     */
    ResponseBody(StreamReplacer scrubber, ContentCoding.Decoding decoding, boolean framed) {
        this.scrubber = scrubber;
        this.decoding = decoding;
        this.framed = framed;
    }

    /** Whether a body with these headers is length-prefixed messages: gRPC ({@code application/grpc*}) or protobuf. */
    static boolean framed(HttpHeaders headers) {
        String type = String.valueOf(headers.get(HttpHeaderNames.CONTENT_TYPE)).toLowerCase(Locale.ROOT);
        return type.startsWith("application/grpc") || type.contains("protobuf");
    }

    /**
     * One upstream chunk as the client gets it, or {@code null} when the response must be cut
     * ({@link #cutBecause} says why); consumes {@code content}.
     */
    public HttpContent transform(HttpContent content) {
        HttpContent out = scrubbed(content);
        if (out != null && framed && scrubber.replaced() > 0) {
            out.release();
            cut = "the upstream's length-prefixed answer quotes a secret, which cannot be replaced without breaking its framing";
            LOG.info(() -> cut + "; response cut");
            return null;
        }
        return out;
    }

    /** Why {@link #transform} cut the response. */
    public String cutBecause() {
        return cut;
    }

    private HttpContent scrubbed(HttpContent content) {
        if (decoding == null) {
            return BodyRewriting.rewrite(content, scrubber);
        }
        boolean last = content instanceof LastHttpContent;
        ByteBuf decoded;
        try {
            List<ByteBuf> parts = decoding.decode(content.content().retain());
            if (last) {
                try {
                    parts = concat(parts, decoding.finish());
                } catch (DecoderException e) {
                    parts.forEach(ByteBuf::release);
                    throw e;
                }
            }
            decoded = join(parts);
        } catch (DecoderException e) {
            cut = "the upstream's coded body does not decode (" + e.getMessage() + ")";
            LOG.fine(() -> cut + "; response cut");
            return null;
        } finally {
            content.release();
        }
        HttpContent plain = last ? new DefaultLastHttpContent(decoded) : new DefaultHttpContent(decoded);
        if (last) {
            ((LastHttpContent) plain).trailingHeaders().set(((LastHttpContent) content).trailingHeaders());
        }
        return BodyRewriting.rewrite(plain, scrubber);
    }

    private static List<ByteBuf> concat(List<ByteBuf> a, List<ByteBuf> b) {
        if (b.isEmpty()) {
            return a;
        }
        List<ByteBuf> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static ByteBuf join(List<ByteBuf> parts) {
        if (parts.isEmpty()) {
            return Unpooled.EMPTY_BUFFER;
        }
        if (parts.size() == 1) {
            return parts.get(0);
        }
        CompositeByteBuf all = Unpooled.compositeBuffer(parts.size());
        all.addComponents(true, parts);
        return all;
    }

    @Override
    public void close() {
        if (decoding != null) {
            decoding.close();
        }
    }
}
