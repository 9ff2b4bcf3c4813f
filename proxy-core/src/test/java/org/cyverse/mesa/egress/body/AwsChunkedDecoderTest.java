package org.cyverse.mesa.egress.body;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** S3's aws-chunked framing undone for the body scan, as {@link ContentCoding#decoding} gives it. */
class AwsChunkedDecoderTest {

    /** AWS's chunked-upload example: 66,560 bytes of 'a' as 65,536, 1,024 and the empty last chunk. */
    static String example(String trailer) {
        String sig = ";chunk-signature=" + "0".repeat(64);
        return "10000" + sig + "\r\n" + "a".repeat(65536) + "\r\n400" + sig + "\r\n" + "a".repeat(1024) + "\r\n0" + sig + "\r\n"
                + trailer + "\r\n";
    }

    static String decode(String body, int piece) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ContentCoding.Decoding d = ContentCoding.decoding("aws-chunked")) {
            byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
            for (int i = 0; i < bytes.length; i += piece) {
                drain(d.decode(Unpooled.wrappedBuffer(bytes, i, Math.min(piece, bytes.length - i))), out);
            }
            drain(d.finish(), out);
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    private static void drain(List<ByteBuf> bufs, ByteArrayOutputStream out) {
        for (ByteBuf b : bufs) {
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            out.writeBytes(a);
            b.release();
        }
    }

    @Test
    void thePayloadComesOutWhateverHowTheBodyIsCut() throws Exception {
        for (int piece : new int[] {1, 7, 4096, 70000}) {
            assertEquals("a".repeat(66560), decode(example(""), piece), "pieces of " + piece);
        }
    }

    @Test
    void trailerLinesAreScannedToo() throws Exception {
        String decoded = decode(example("x-amz-checksum-crc32:sOO8/Q==\r\nx-amz-trailer-signature:" + "1".repeat(64) + "\r\n"), 999);
        assertEquals("a".repeat(66560) + "x-amz-checksum-crc32:sOO8/Q==\nx-amz-trailer-signature:" + "1".repeat(64) + "\n", decoded);
    }

    @Test
    void framingThatLiesIsMalformed() {
        String sig = ";chunk-signature=" + "0".repeat(64);
        assertThrows(DecoderException.class, () -> decode("10" + sig + "\r\n" + "a".repeat(20) + "\r\n0\r\n\r\n", 64), "a size that lies");
        assertThrows(DecoderException.class, () -> decode("zz\r\nabc\r\n0\r\n\r\n", 64), "a size that is not hex");
        assertThrows(DecoderException.class, () -> decode("3\r\nabc\r\n", 64), "no last chunk");
        assertThrows(DecoderException.class, () -> decode("3\r\nabc\r\n0\r\n\r\nextra", 64), "bytes after the end");
        assertThrows(DecoderException.class, () -> decode("3\nabc\r\n0\r\n\r\n", 64), "a bare LF");
    }
}
