package org.cyverse.mesa.egress.body;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.BrotliOutputStream;
import com.aayushatharva.brotli4j.encoder.Encoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;
import org.cyverse.mesa.egress.injector.scan.Finding;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;
import org.cyverse.mesa.egress.testkit.BodyUpstream;
import org.junit.jupiter.api.Test;

/**
 * Coded request bodies as an attacker shapes them: bytes a decoder skips, streams cut short or
 * corrupt, bombs. Each is either found or refused as unscannable, never passed unread, and never
 * allowed to fill memory.
 */
class RequestBodyScanTest {

    private static final String SECRET = "sk-llm-REAL-7c1d9e2f4a6b8c0d";

    private static ScanPlan plan() {
        return new ScanPlan.Builder().add("llm", Finding.Kind.SECRET, SECRET).build();
    }

    /** Scans {@code body} in chunks of {@code chunk} bytes; the hit, or the exception. */
    private static BodyScanner.Hit scan(String coding, byte[] body, int chunk) throws RequestBodyScan.UnscannableException {
        try (RequestBodyScan scan = RequestBodyScan.of(List.of(plan()), null, coding, true)) {
            for (int off = 0; off < body.length; off += chunk) {
                ByteBuf b = Unpooled.copiedBuffer(body, off, Math.min(chunk, body.length - off));
                try {
                    BodyScanner.Hit hit = scan.scan(b);
                    if (hit != null) {
                        return hit;
                    }
                } finally {
                    b.release();
                }
            }
            return scan.finish();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void plaintextAfterTheEndOfACompressedStreamIsSeen() throws Exception {
        for (String coding : List.of("gzip", "deflate", "br", "zstd")) {
            byte[] body = concat(BodyUpstream.encode("{}".getBytes(StandardCharsets.UTF_8), coding), ("k=" + SECRET).getBytes(StandardCharsets.UTF_8));
            for (int chunk : new int[] {body.length, 7}) {
                BodyScanner.Hit hit;
                try {
                    hit = scan(coding, body, chunk);
                } catch (RequestBodyScan.UnscannableException refused) {
                    continue; // refused as malformed: also closed
                }
                assertNotNull(hit, coding + " in chunks of " + chunk);
            }
        }
    }

    @Test
    void aSecretInTheGzipCommentFieldIsSeen() throws Exception {
        byte[] data = "{}".getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream deflated = new ByteArrayOutputStream();
        try (DeflaterOutputStream d = new DeflaterOutputStream(deflated, new Deflater(9, true))) {
            d.write(data);
        }
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        gz.write(new byte[] {0x1f, (byte) 0x8b, 8, 0x10, 0, 0, 0, 0, 0, (byte) 0xff}); // FLG.FCOMMENT
        gz.write(("k=" + SECRET).getBytes(StandardCharsets.US_ASCII));
        gz.write(0);
        gz.write(deflated.toByteArray());
        CRC32 crc = new CRC32();
        crc.update(data);
        long c = crc.getValue();
        gz.write(new byte[] {(byte) c, (byte) (c >> 8), (byte) (c >> 16), (byte) (c >> 24), (byte) data.length, 0, 0, 0});
        assertNotNull(scan("gzip", gz.toByteArray(), 1024));
    }

    @Test
    void aStreamCutShortOrCorruptIsRefused() throws Exception {
        byte[] good = BodyUpstream.encode("{\"a\":\"hello hello hello hello hello hello\"}".getBytes(StandardCharsets.UTF_8), "deflate");
        byte[] cut = Arrays.copyOf(good, good.length - 4);
        assertThrows(RequestBodyScan.UnscannableException.class, () -> scan("deflate", cut, 1024));
        byte[] corrupt = good.clone();
        for (int i = 4; i < corrupt.length - 2; i++) {
            corrupt[i] ^= 0x5a;
        }
        assertThrows(RequestBodyScan.UnscannableException.class, () -> scan("deflate", corrupt, 1024));
        byte[] gzipCorrupt = BodyUpstream.encode("{\"a\":\"hello hello hello hello hello hello\"}".getBytes(StandardCharsets.UTF_8), "gzip");
        for (int i = 12; i < gzipCorrupt.length - 8; i++) {
            gzipCorrupt[i] ^= 0x5a;
        }
        assertThrows(RequestBodyScan.UnscannableException.class, () -> scan("gzip", gzipCorrupt, 1024));
    }

    @Test
    void aDecoderThatFailsOnItsLastBytesClosesQuietly() throws Exception {
        RequestBodyScan scan = RequestBodyScan.of(List.of(plan()), null, "gzip", true);
        byte[] gz = BodyUpstream.encode("{\"a\":1}".getBytes(StandardCharsets.UTF_8), "gzip");
        ByteBuf half = Unpooled.copiedBuffer(gz, 0, gz.length / 2);
        scan.scan(half);
        half.release();
        assertDoesNotThrow(scan::close);
    }

    @Test
    void bombsAreRefusedBeforeTheyFillMemory() throws Exception {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        byte[] zeros = new byte[1 << 20];
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            for (int i = 0; i < 256; i++) {
                out.write(zeros);
            }
        }
        long start = System.nanoTime();
        RequestBodyScan.UnscannableException gzip = assertThrows(RequestBodyScan.UnscannableException.class,
                () -> scan("gzip", gz.toByteArray(), 65536));
        assertTrue(gzip.getMessage().contains("gzip"), gzip.getMessage());

        Brotli4jLoader.ensureAvailability();
        ByteArrayOutputStream br = new ByteArrayOutputStream();
        try (BrotliOutputStream out = new BrotliOutputStream(br, new Encoder.Parameters().setQuality(5).setWindow(24))) {
            for (int i = 0; i < 512; i++) {
                out.write(zeros);
            }
        }
        assertTrue(br.size() < 65536, "512 MiB of zeros in " + br.size() + " bytes of br: one chunk");
        assertThrows(RequestBodyScan.UnscannableException.class, () -> scan("br", br.toByteArray(), 65536));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 20_000, "refused in " + millis + " ms");
    }
}
