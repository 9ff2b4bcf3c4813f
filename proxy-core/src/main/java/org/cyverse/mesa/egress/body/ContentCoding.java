package org.cyverse.mesa.egress.body;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.Brotli;
import io.netty.handler.codec.compression.BrotliDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.compression.JdkZlibDecoder;
import io.netty.handler.codec.compression.ZlibWrapper;
import io.netty.handler.codec.compression.Zstd;
import io.netty.handler.codec.compression.ZstdDecoder;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The content codings (RFC 9110 section 8.4) the proxy can undo to read a body: {@code gzip}
 * ({@code x-gzip}), {@code deflate} (zlib, or raw deflate as some servers send it), {@code br}
 * and {@code zstd}, with Netty's decoders; {@code br} and {@code zstd} need their native
 * libraries, which the build bundles for linux x86_64 and aarch64. For requests also S3's
 * {@code aws-chunked} framing ({@link AwsChunkedDecoder}).
 */
public final class ContentCoding {

    /**
     * The most one input chunk may decode to, per layer: past it the decoder fails (a
     * decompression bomb would otherwise fill memory from one small chunk before anything could
     * count it). 16 MiB per chunk of at most 64 KiB is a ratio of 256:1, beyond what text compresses to.
     */
    static final int MAX_ALLOCATION = 16 << 20;

    private ContentCoding() {}

    /** Thrown for a coding the proxy cannot decode. */
    public static final class UnsupportedCodingException extends Exception {
        public UnsupportedCodingException(String coding) {
            super("content coding " + coding);
        }
    }

    /**
     * A message's content coding: every {@code Content-Encoding} field joined in order (the first
     * alone would let a second coding go undecoded), or {@code null} when it has none.
     */
    public static String of(HttpHeaders headers) {
        List<String> fields = headers.getAll(HttpHeaderNames.CONTENT_ENCODING);
        return fields.isEmpty() ? null : String.join(", ", fields);
    }

    /** Whether {@code contentEncoding} (a header value, possibly {@code null}) means the body is as it is. */
    public static boolean identity(String contentEncoding) {
        if (contentEncoding == null) {
            return true;
        }
        for (String coding : contentEncoding.split(",")) {
            String c = coding.trim();
            if (!c.isEmpty() && !c.equalsIgnoreCase("identity")) {
                return false;
            }
        }
        return true;
    }

    /** The codings this proxy decodes, for an {@code Accept-Encoding} it sends: gzip and deflate always. */
    public static List<String> decodable() {
        List<String> codings = new ArrayList<>(List.of("gzip", "deflate"));
        if (Brotli.isAvailable()) {
            codings.add("br");
        }
        if (Zstd.isAvailable()) {
            codings.add("zstd");
        }
        return codings;
    }

    /**
     * The client's {@code Accept-Encoding} narrowed to the codings this proxy decodes (and
     * {@code identity}), so that an upstream whose answer must be read is not invited to answer in
     * another; {@code *} becomes the list of those. {@code null} when nothing is left: the
     * upstream then answers in identity.
     */
    public static String restrictAcceptEncoding(String acceptEncoding) {
        if (acceptEncoding == null) {
            return null;
        }
        List<String> decodable = decodable();
        List<String> kept = new ArrayList<>();
        for (String item : acceptEncoding.split(",")) {
            String entry = item.trim();
            int semi = entry.indexOf(';');
            String coding = (semi < 0 ? entry : entry.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
            if (coding.equals("*")) {
                String weight = semi < 0 ? "" : entry.substring(semi);
                decodable.forEach(c -> kept.add(c + weight));
            } else if (coding.equals("identity") || coding.equals("x-gzip") || decodable.contains(coding)) {
                kept.add(entry);
            }
        }
        return kept.isEmpty() ? null : String.join(", ", kept);
    }

    /**
     * A decoder for a body in {@code contentEncoding} (codings in the order they were applied;
     * decoded in reverse).
     */
    public static Decoding decoding(String contentEncoding) throws UnsupportedCodingException {
        List<String> codings = new ArrayList<>();
        for (String coding : contentEncoding.split(",")) {
            String c = coding.trim().toLowerCase(Locale.ROOT);
            if (!c.isEmpty() && !c.equals("identity")) {
                codings.add(c);
            }
        }
        ChannelHandler[] handlers = new ChannelHandler[codings.size()];
        boolean[] gzip = new boolean[codings.size()];
        for (int i = 0; i < codings.size(); i++) {
            int layer = codings.size() - 1 - i;
            handlers[layer] = decoder(codings.get(i));
            gzip[layer] = codings.get(i).endsWith("gzip");
        }
        // Decoded bytes are transient (scanned, or written to the client and gone): unpooled, so
        // that a large (or hostile) body leaves no pooled memory reserved behind it.
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(UnpooledByteBufAllocator.DEFAULT);
        channel.pipeline().addLast(handlers);
        return new Decoding(channel, handlers, gzip);
    }

    private static ChannelHandler decoder(String coding) throws UnsupportedCodingException {
        return switch (coding) {
            // Every member of a multi-member gzip body: a reader that stopped after the first would
            // miss what a server that reads them all (Go's, zlib's gzip tools) sees.
            case "gzip", "x-gzip" -> new JdkZlibDecoder(ZlibWrapper.GZIP, true, MAX_ALLOCATION);
            // RFC 9110 says zlib; some servers send raw deflate: ZLIB_OR_NONE reads either.
            case "deflate", "x-deflate" -> new JdkZlibDecoder(ZlibWrapper.ZLIB_OR_NONE, MAX_ALLOCATION);
            case "br" -> {
                if (!Brotli.isAvailable()) {
                    throw new UnsupportedCodingException(coding + " (its native library did not load here)");
                }
                yield BrotliDecoder.newDecoderWithMaxAllocation(MAX_ALLOCATION);
            }
            case "zstd" -> {
                if (!Zstd.isAvailable()) {
                    throw new UnsupportedCodingException(coding + " (its native library did not load here)");
                }
                yield new ZstdDecoder(MAX_ALLOCATION);
            }
            // S3's chunked upload framing (its payload is what the scan must see).
            case "aws-chunked" -> new AwsChunkedDecoder();
            default -> throw new UnsupportedCodingException(coding.length() <= 32 ? coding : coding.substring(0, 32) + "...");
        };
    }

    /**
     * One body being decoded, chunk by chunk. Not thread-safe; {@link #close} releases what it
     * holds. A malformed encoding surfaces as a {@link io.netty.handler.codec.DecoderException}.
     */
    public static final class Decoding implements AutoCloseable {
        private final EmbeddedChannel channel;
        private final ChannelHandler outermost;
        private final ChannelHandler[] layers;
        private final boolean[] gzip;

        private Decoding(EmbeddedChannel channel, ChannelHandler[] layers, boolean[] gzip) {
            this.channel = channel;
            this.outermost = layers[0];
            this.layers = layers;
            this.gzip = gzip;
        }

        /** Decodes {@code in} (consumed: released) and returns the decoded buffers, which the caller releases. */
        public List<ByteBuf> decode(ByteBuf in) {
            if (in.isReadable() && outermost instanceof JdkZlibDecoder zlib && zlib.isClosed()) {
                // zlib drops what follows the end of its stream; a server might not.
                in.release();
                throw new DecoderException("data after the end of the compressed stream");
            }
            channel.writeInbound(in);
            return drain();
        }

        /** Ends the body; returns what the decoders still held. A deflate stream that did not come to its end is malformed. */
        public List<ByteBuf> finish() {
            channel.finish();
            List<ByteBuf> rest = drain();
            for (int i = 0; i < layers.length; i++) {
                // A gzip decoder reading every member waits for another one: only deflate says it ended.
                if (layers[i] instanceof JdkZlibDecoder zlib && !gzip[i] && !zlib.isClosed()) {
                    rest.forEach(ByteBuf::release);
                    throw new DecoderException("the compressed stream ends before its end marker");
                }
            }
            return rest;
        }

        private List<ByteBuf> drain() {
            List<ByteBuf> out = new ArrayList<>();
            ByteBuf b;
            while ((b = channel.readInbound()) != null) {
                if (b.isReadable()) {
                    out.add(b);
                } else {
                    b.release();
                }
            }
            return out;
        }

        /** Releases what the decoders hold; never throws (a decoder that fails on its last bytes has nothing more to say). */
        @Override
        public void close() {
            try {
                channel.finishAndReleaseAll();
            } catch (RuntimeException e) {
                channel.releaseInbound();
                channel.releaseOutbound();
            }
        }
    }
}
