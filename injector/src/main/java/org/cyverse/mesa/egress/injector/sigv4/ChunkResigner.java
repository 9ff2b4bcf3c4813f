package org.cyverse.mesa.egress.injector.sigv4;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.cyverse.mesa.egress.injector.AnswerStyle;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.RequestUse;

/**
 * Re-signs an aws-chunked body signed chunk by chunk ({@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}):
 * each chunk's {@code chunk-signature} is checked in the client's chain (sentinel key, the
 * client's date and scope, starting from the client's seed signature) and replaced by the
 * signature in the real key's chain (starting from the re-signed request's seed). A chunk's
 * signature comes before its data, so each chunk is held until its data is complete: memory is
 * bounded by {@code maxChunk}, never by the object. The framing is kept byte for byte but for
 * the signatures, which have the same length: {@code Content-Length} does not change.
 * Not thread-safe: one per request body. As a {@link BodyCheck} it reads nothing ahead and
 * rewrites each chunk as it goes on; a chunk it cannot re-sign refuses the body there.
 */
public final class ChunkResigner implements BodyCheck {

    /** The body cannot be re-signed: its framing lies, a chunk is too large, or a signature is not the client's. */
    public static final class ChunkException extends Exception {
        private final boolean malformed;

        ChunkException(String message) {
            this(message, true);
        }

        ChunkException(String message, boolean malformed) {
            super(message, null, false, false);
            this.malformed = malformed;
        }

        /** Whether the framing is broken (400), rather than a signature not the client's (403). */
        public boolean malformed() {
            return malformed;
        }
    }

    private static final byte[] SIGNATURE_KEY = ";chunk-signature=".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_LINE = 256;

    private final Chain client;
    private final Chain real;
    private final int maxChunk;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final MessageDigest digest;
    private byte[] data;
    private int filled;
    private String sizeText;
    private String pendingSignature;
    private boolean done;
    private final boolean trailer;
    /** After the last chunk of a body with a trailer: its fields, held until their signature is checked. */
    private boolean inTrailer;
    private final StringBuilder trailerFields = new StringBuilder();
    private final ByteArrayOutputStream trailerOut = new ByteArrayOutputStream();

    /** One signature chain: key, date, scope and the signature the next chunk is chained to. */
    static final class Chain {
        private final byte[] key;
        private final String amzDate;
        private final String scope;
        private String previous;

        Chain(byte[] key, String amzDate, String scope, String seed) {
            this.key = key;
            this.amzDate = amzDate;
            this.scope = scope;
            this.previous = seed;
        }

        String next(String chunkSha256) {
            previous = SigV4Signer.chunkSignature(key, amzDate, scope, previous, chunkSha256);
            return previous;
        }

        String trailer(String trailerSha256) {
            return SigV4Signer.trailerSignature(key, amzDate, scope, previous, trailerSha256);
        }
    }

    /** The largest chunk held to be re-signed (the SDKs send 64 KiB to 1 MiB). */
    public static final int MAX_CHUNK = 8 << 20;

    /**
     * How to re-sign one body, fixed when its head was re-signed: the client's chain and the real
     * key's, each from its seed signature. Holds signing keys (derived, one day and scope only).
     */
    public static final class Plan implements BodyCheck.Plan, RequestUse {
        private final String credential;
        private final byte[] clientKey;
        private final String clientDate;
        private final String clientScope;
        private final String clientSeed;
        private final byte[] realKey;
        private final String realDate;
        private final String realScope;
        private final String realSeed;
        private final boolean trailer;

        Plan(String credential, byte[] clientKey, String clientDate, String clientScope, String clientSeed, byte[] realKey, String realDate,
                String realScope, String realSeed, boolean trailer) {
            this.credential = credential;
            this.trailer = trailer;
            this.clientKey = clientKey;
            this.clientDate = clientDate;
            this.clientScope = clientScope;
            this.clientSeed = clientSeed;
            this.realKey = realKey;
            this.realDate = realDate;
            this.realScope = realScope;
            this.realSeed = realSeed;
        }

        /** The credential whose real key signs. */
        public String credential() {
            return credential;
        }

        /** A re-signer for one body. */
        @Override
        public ChunkResigner start() {
            return new ChunkResigner(new Chain(clientKey, clientDate, clientScope, clientSeed),
                    new Chain(realKey, realDate, realScope, realSeed), MAX_CHUNK, trailer);
        }

        /** The request's use: its body is re-signed. */
        @Override
        public BodyCheck.Plan body() {
            return this;
        }

        @Override
        public String toString() {
            return "ChunkResigner.Plan[" + clientScope + " -> " + realScope + "]";
        }
    }

    ChunkResigner(Chain client, Chain real, int maxChunk) {
        this(client, real, maxChunk, false);
    }

    /** @param trailer whether the last chunk is followed by trailer fields and their signature ({@code ...-PAYLOAD-TRAILER}) */
    ChunkResigner(Chain client, Chain real, int maxChunk, boolean trailer) {
        this.trailer = trailer;
        this.client = client;
        this.real = real;
        this.maxChunk = maxChunk;
        try {
            this.digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** Takes the next bytes of the body; returns what may be sent now (whole re-signed chunks). */
    public byte[] feed(byte[] in, int off, int len) throws ChunkException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = off;
        int end = off + len;
        while (i < end) {
            if (done) {
                throw new ChunkException("bytes after the last chunk");
            }
            if (data == null) { // reading a chunk's size line
                byte b = in[i++];
                line.write(b);
                if (line.size() > MAX_LINE) {
                    throw new ChunkException("a chunk header longer than " + MAX_LINE + " bytes");
                }
                if (b == '\n') {
                    if (inTrailer) {
                        trailerLine(out);
                    } else {
                        startChunk(out);
                    }
                }
            } else {
                int n = Math.min(end - i, data.length - filled);
                System.arraycopy(in, i, data, filled, n);
                filled += n;
                i += n;
                if (filled == data.length) {
                    endChunk(out);
                }
            }
        }
        return out.toByteArray();
    }

    @Override
    public Status inspect(byte[] bytes, boolean last) {
        return Status.CONTINUE;
    }

    @Override
    public boolean reads() {
        return false;
    }

    /** The signatures change; the length does not (a signature's length is fixed). */
    @Override
    public boolean rewrites() {
        return true;
    }

    /** Whole re-signed chunks; the body's end must close its last chunk. A chunk that cannot be re-signed refuses the body. */
    @Override
    public byte[] rewrite(byte[] bytes, boolean last) throws Refused {
        try {
            byte[] out = feed(bytes, 0, bytes.length);
            if (last) {
                finish();
            }
            return out;
        } catch (ChunkException e) {
            // The hint of a chunk whose signature is not the client's is the general one: sign with the sentinel pair.
            throw new Refused(e.malformed() ? new Refusal("bad_request", null, "aws-chunked: " + e.getMessage(), AnswerStyle.JSON, null)
                    : new Refusal("sigv4_signature_mismatch", null, e.getMessage(), AnswerStyle.JSON, null));
        }
    }

    /** The body ended; throws when it ended before its last chunk. */
    public void finish() throws ChunkException {
        if (!done) {
            throw new ChunkException("the body ends before its last chunk");
        }
    }

    private void startChunk(ByteArrayOutputStream out) throws ChunkException {
        byte[] header = line.toByteArray();
        line.reset();
        String text = new String(header, StandardCharsets.US_ASCII);
        int semicolon = text.indexOf(';');
        if (!text.endsWith("\r\n") || semicolon <= 0 || !text.startsWith(";chunk-signature=", semicolon)
                || text.length() != semicolon + SIGNATURE_KEY.length + 64 + 2) {
            throw new ChunkException("a chunk header that is not SIZE;chunk-signature=SIGNATURE");
        }
        sizeText = text.substring(0, semicolon);
        long size;
        try {
            size = sizeText.length() > 8 ? -1 : Long.parseLong(sizeText, 16);
        } catch (NumberFormatException e) {
            size = -1;
        }
        if (size < 0 || size > maxChunk) {
            throw new ChunkException(size < 0 ? "a chunk size that is not hex" : "a chunk of more than " + maxChunk + " bytes");
        }
        String signature = text.substring(semicolon + SIGNATURE_KEY.length, text.length() - 2);
        pendingSignature = signature;
        if (size == 0 && trailer) { // no CRLF after it: the trailer fields follow
            data = new byte[2];
            endChunk(out, false);
            inTrailer = true;
            return;
        }
        data = new byte[(int) size + 2]; // and the CRLF after it
        filled = 0;
    }

    /** One line of the trailer: a field (held), its signature (checked, then re-signed), or the empty line that ends the body. */
    private void trailerLine(ByteArrayOutputStream out) throws ChunkException {
        String text = line.toString(StandardCharsets.ISO_8859_1);
        line.reset();
        if (!text.endsWith("\r\n")) {
            throw new ChunkException("a trailer line not ended by CRLF");
        }
        String field = text.substring(0, text.length() - 2);
        if (field.isEmpty()) {
            throw new ChunkException("the trailer ends without x-amz-trailer-signature");
        }
        int colon = field.indexOf(':');
        if (colon <= 0) {
            throw new ChunkException("a trailer line that is not NAME:VALUE");
        }
        String name = field.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = field.substring(colon + 1).trim();
        if (!name.equals("x-amz-trailer-signature")) {
            trailerFields.append(name).append(':').append(value).append('\n');
            trailerOut.writeBytes(header(text));
            return;
        }
        String hash = SigV4Signer.sha256Hex(trailerFields.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (!SigV4Signer.same(client.trailer(hash), value)) {
            throw new ChunkException("the trailer signature is not the sentinel key's (a trailer field was changed, or signed with"
                    + " another key)", false);
        }
        out.writeBytes(trailerOut.toByteArray());
        out.writeBytes(header("x-amz-trailer-signature:" + real.trailer(hash) + "\r\n"));
        inTrailer = false;
        data = new byte[2]; // the empty line that ends the body
        filled = 0;
        pendingSignature = null;
    }

    private static byte[] header(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private void endChunk(ByteArrayOutputStream out) throws ChunkException {
        if (pendingSignature == null) { // the empty line after a trailer's signature
            if (data[0] != '\r' || data[1] != '\n') {
                throw new ChunkException("the trailer is not ended by an empty line");
            }
            out.write(data, 0, 2);
            done = true;
            data = null;
            return;
        }
        endChunk(out, true);
    }

    /** Checks the chunk in {@code data} (and its CRLF when {@code withCrlf}) and writes it re-signed. */
    private void endChunk(ByteArrayOutputStream out, boolean withCrlf) throws ChunkException {
        int size = data.length - 2;
        if (withCrlf && (data[size] != '\r' || data[size + 1] != '\n')) {
            throw new ChunkException("chunk data not followed by CRLF (its size lies)");
        }
        digest.reset();
        digest.update(data, 0, size);
        String hash = HexFormat.of().formatHex(digest.digest());
        if (!SigV4Signer.same(client.next(hash), pendingSignature)) {
            throw new ChunkException("a chunk signature is not the sentinel key's in the request's chain (the chunk was changed,"
                    + " reordered or signed with another key)", false);
        }
        out.writeBytes((sizeText + ";chunk-signature=" + real.next(hash) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        if (withCrlf) {
            out.write(data, 0, size + 2);
            done = size == 0;
        }
        data = null;
    }
}
