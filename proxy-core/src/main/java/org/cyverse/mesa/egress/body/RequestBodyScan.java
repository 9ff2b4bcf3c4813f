package org.cyverse.mesa.egress.body;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;
import org.cyverse.mesa.egress.injector.scan.DlpPlan;
import org.cyverse.mesa.egress.injector.scan.DlpRule;
import org.cyverse.mesa.egress.injector.scan.DlpScanner;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;

/**
 * One request body scanned as it arrives, for every plan of the admission's verdict, in its
 * decoded form when it has a content coding. Confined to one event loop; {@link #close} releases
 * the decoder.
 */
public final class RequestBodyScan implements AutoCloseable {

    /**
     * Decoded bytes scanned per body at most, once the body has inflated past its coded size:
     * past this, a compressed body is refused rather than scanned on (a small body that inflates
     * without end would hold the event loop). A decoding that does not inflate (S3's aws-chunked
     * framing) costs no more than the coded bytes themselves, and is scanned to its end.
     */
    static final long MAX_DECODED_BYTES = 256L << 20;

    /** Why a body could not be scanned; the request is refused. */
    public static final class UnscannableException extends Exception {
        public UnscannableException(String message) {
            super(message);
        }
    }

    private final List<BodyScanner> scanners;
    /** For a coded body: scanners of the coded bytes as they were sent (empty otherwise). */
    private final List<BodyScanner> rawScanners;
    private final DlpScanner dlp;
    private final ContentCoding.Decoding decoding;
    private final String coding;
    private long decoded;
    private long coded;
    private DlpRule dlpFound;

    private RequestBodyScan(List<BodyScanner> scanners, List<BodyScanner> rawScanners, DlpScanner dlp, ContentCoding.Decoding decoding,
            String coding) {
        this.scanners = scanners;
        this.rawScanners = rawScanners;
        this.dlp = dlp;
        this.decoding = decoding;
        this.coding = coding;
    }

    /**
     * A scan of a body sent with {@code contentEncoding} ({@code null} for none).
     *
     * @param dlp the {@code dlp} rules to look for too, or {@code null}
     * @param mustDecode whether a coding the proxy cannot decode refuses the body (a credential's
     *     host, where a key would be worth hiding) rather than having it scanned as it is
     * @throws UnscannableException a coding that cannot be decoded, with {@code mustDecode}
     */
    public static RequestBodyScan of(List<ScanPlan> plans, DlpPlan dlp, String contentEncoding, boolean mustDecode)
            throws UnscannableException {
        List<BodyScanner> scanners = new ArrayList<>(plans.size());
        plans.forEach(plan -> scanners.add(plan.newScanner()));
        ContentCoding.Decoding decoding = null;
        if (!ContentCoding.identity(contentEncoding)) {
            try {
                decoding = ContentCoding.decoding(contentEncoding);
            } catch (ContentCoding.UnsupportedCodingException e) {
                if (mustDecode) {
                    throw new UnscannableException("the body is in " + e.getMessage() + ", which the proxy cannot decode to scan;"
                            + " send it uncompressed or in one of " + String.join(", ", ContentCoding.decodable()));
                }
            }
        }
        List<BodyScanner> rawScanners = new ArrayList<>();
        if (decoding != null) {
            plans.forEach(plan -> rawScanners.add(plan.newScanner()));
        }
        return new RequestBodyScan(scanners, rawScanners, dlp == null ? null : dlp.newScanner(), decoding,
                contentEncoding == null ? null : contentEncoding.length() <= 32 ? contentEncoding : contentEncoding.substring(0, 32) + "...");
    }

    /**
     * Scans one chunk (left as it is: its reader index does not move).
     *
     * @return the first hit of the body so far, or {@code null}
     * @throws UnscannableException the coded body is malformed, or inflates past the bound
     */
    public BodyScanner.Hit scan(ByteBuf content) throws UnscannableException {
        if (decoding == null) {
            return scanBytes(content, true);
        }
        // The coded bytes too: what a decoder skips (after a stream's end, a gzip comment) is
        // then still seen as it was sent.
        coded += content.readableBytes();
        BodyScanner.Hit raw = scanBytes(content, false);
        if (raw != null) {
            return raw;
        }
        try {
            return scanDecoded(decoding.decode(content.retainedDuplicate()));
        } catch (DecoderException e) {
            throw malformed(e);
        }
    }

    /** Has the {@code dlp} rules judge what they were given so far (see {@link DlpScanner#flush}); the first rule found, or {@code null}. */
    public DlpRule flushDlp() {
        if (dlp != null && dlpFound == null) {
            dlpFound = dlp.flush();
        }
        return dlpFound;
    }

    /** Ends the body: what the decoder and the scanners' views still held is scanned. */
    public BodyScanner.Hit finish() throws UnscannableException {
        if (decoding != null) {
            try {
                BodyScanner.Hit hit = scanDecoded(decoding.finish());
                if (hit != null) {
                    return hit;
                }
            } catch (DecoderException e) {
                throw malformed(e);
            }
        }
        BodyScanner.Hit hit = finish(scanners);
        if (hit == null) {
            hit = finish(rawScanners);
        }
        flushDlp();
        return hit;
    }

    private static BodyScanner.Hit finish(List<BodyScanner> views) {
        for (BodyScanner scanner : views) {
            BodyScanner.Hit hit = scanner.finish();
            if (hit != null) {
                return hit;
            }
        }
        return null;
    }

    private BodyScanner.Hit scanDecoded(List<ByteBuf> buffers) throws UnscannableException {
        BodyScanner.Hit hit = null;
        try {
            for (ByteBuf b : buffers) {
                decoded += b.readableBytes();
                if (decoded > MAX_DECODED_BYTES && decoded > coded) {
                    throw new UnscannableException("the " + coding + " body inflates past " + (MAX_DECODED_BYTES >> 20)
                            + " MiB, more than the proxy scans");
                }
                if (hit == null) {
                    hit = scanBytes(b, true);
                }
            }
        } finally {
            buffers.forEach(ByteBuf::release);
        }
        return hit;
    }

    /** @param decoded whether {@code b} is the body as decoded (else the coded bytes of a coded body) */
    private BodyScanner.Hit scanBytes(ByteBuf b, boolean decoded) {
        byte[] bytes;
        int off;
        if (b.hasArray()) {
            bytes = b.array();
            off = b.arrayOffset() + b.readerIndex();
        } else {
            bytes = ByteBufUtil.getBytes(b, b.readerIndex(), b.readableBytes(), false);
            off = 0;
        }
        if (decoded && dlp != null && dlpFound == null) {
            dlpFound = dlp.feed(bytes, off, b.readableBytes());
        }
        for (BodyScanner scanner : decoded ? scanners : rawScanners) {
            BodyScanner.Hit hit = scanner.feed(bytes, off, b.readableBytes());
            if (hit != null) {
                return hit;
            }
        }
        return null;
    }

    /** The first {@code dlp} rule that matched in the body so far, or {@code null}. */
    public DlpRule dlpFound() {
        return dlpFound;
    }

    private UnscannableException malformed(DecoderException e) {
        return new UnscannableException("the " + coding + " body is malformed (" + e.getMessage() + ")");
    }

    @Override
    public void close() {
        if (decoding != null) {
            decoding.close();
        }
    }
}
