package org.cyverse.mesa.egress.body;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Undoes S3's {@code aws-chunked} content coding (S3 "Signature calculations for the
 * Authorization header: transferring payload in multiple chunks" and "... trailing headers"), so
 * that an upload is scanned as its payload: {@code SIZE[;chunk-signature=SIG] CRLF DATA CRLF},
 * ..., a last chunk of size 0, then trailer lines ({@code x-amz-checksum-crc32:...}) up to an
 * empty line. Emits the data and, for the scan too, the trailer lines. Anything else (a size that
 * is not hex, a missing CRLF, bytes after the end) is a {@link DecoderException}: a body whose
 * framing lies is not passed on as scanned. Netty has no decoder for this coding.
 */
final class AwsChunkedDecoder extends ByteToMessageDecoder {

    private static final int MAX_LINE = 4096;

    private enum State { SIZE, DATA, DATA_END, TRAILER, DONE }

    private State state = State.SIZE;
    private long left;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            switch (state) {
                case SIZE -> {
                    String line = line(in);
                    if (line == null) {
                        return;
                    }
                    int semicolon = line.indexOf(';');
                    String size = semicolon < 0 ? line : line.substring(0, semicolon);
                    if (size.isEmpty() || size.length() > 15 || !size.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                        throw new DecoderException("aws-chunked: a chunk size that is not hex");
                    }
                    left = Long.parseLong(size, 16);
                    state = left == 0 ? State.TRAILER : State.DATA;
                }
                case DATA -> {
                    int n = (int) Math.min(left, in.readableBytes());
                    out.add(in.readRetainedSlice(n));
                    left -= n;
                    if (left == 0) {
                        state = State.DATA_END;
                    }
                }
                case DATA_END -> {
                    if (in.readableBytes() < 2) {
                        return;
                    }
                    if (in.readByte() != '\r' || in.readByte() != '\n') {
                        throw new DecoderException("aws-chunked: chunk data not followed by CRLF (its size lies)");
                    }
                    state = State.SIZE;
                }
                case TRAILER -> {
                    String line = line(in);
                    if (line == null) {
                        return;
                    }
                    if (line.isEmpty()) {
                        state = State.DONE;
                    } else {
                        out.add(ctx.alloc().buffer(line.length() + 1).writeBytes((line + "\n").getBytes(StandardCharsets.ISO_8859_1)));
                    }
                }
                case DONE -> throw new DecoderException("aws-chunked: bytes after the last chunk's trailer");
            }
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        decode(ctx, in, out);
        if (state != State.DONE) {
            throw new DecoderException("aws-chunked: the body ends before its last chunk");
        }
    }

    /** The next CRLF-terminated line (without it), or {@code null} when it has not all arrived. */
    private String line(ByteBuf in) {
        int lf = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() > MAX_LINE) {
                throw new DecoderException("aws-chunked: a line longer than " + MAX_LINE + " bytes");
            }
            return null;
        }
        int length = lf - in.readerIndex();
        if (length == 0 || in.getByte(lf - 1) != '\r' || length > MAX_LINE) {
            throw new DecoderException("aws-chunked: a line not ended by CRLF");
        }
        String line = in.toString(in.readerIndex(), length - 1, StandardCharsets.ISO_8859_1);
        in.skipBytes(length + 1);
        return line;
    }
}
