package org.cyverse.mesa.egress.injector.sigv4;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.injector.sigv4.SigV4Problem.Kind;

/**
 * What a signature says of the body: the payload hash its canonical request ends with, as the
 * client declared it in {@code x-amz-content-sha256} (S3 "Signature calculations for the
 * Authorization header"), or as it follows from the request when it declares none.
 *
 * @param hash a hex SHA-256 or one of S3's constants ({@code UNSIGNED-PAYLOAD}, {@code STREAMING-...})
 * @param signedChunks whether each aws-chunked chunk carries a signature of its own (which the
 *     proxy would have to compute again)
 */
record PayloadMode(String hash, boolean signedChunks) {

    static final String UNSIGNED = "UNSIGNED-PAYLOAD";
    static final String UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
    static final String SIGNED_CHUNKS = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
    static final String SIGNED_CHUNKS_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";

    private static final Pattern HEX64 = Pattern.compile("[0-9a-fA-F]{64}");

    static PayloadMode of(SigV4Auth auth, Map<String, List<String>> headers) throws SigV4Problem {
        List<String> declared = headers.get("x-amz-content-sha256");
        if (declared != null && declared.size() > 1) {
            throw new SigV4Problem(Kind.MALFORMED, "the request has x-amz-content-sha256 twice");
        }
        String value = declared == null ? null : declared.get(0).trim();
        if (value == null) {
            if (auth.presigned() && auth.s3()) {
                return new PayloadMode(UNSIGNED, false); // what S3 signs a presigned URL's body as
            }
            if (!hasBody(headers)) {
                return new PayloadMode(SigV4Signer.EMPTY_SHA256, false);
            }
            throw new SigV4Problem(Kind.UNSUPPORTED, "a request with a body must declare its payload hash in x-amz-content-sha256"
                    + " (the proxy streams the body and does not hash it); S3 clients always do");
        }
        if (HEX64.matcher(value).matches() || value.equals(UNSIGNED) || value.equals(UNSIGNED_TRAILER)) {
            return new PayloadMode(value, false); // the upstream checks the body (or its trailing checksum) against it
        }
        if (value.equals(SIGNED_CHUNKS) || value.equals(SIGNED_CHUNKS_TRAILER)) {
            return new PayloadMode(value, true);
        }
        if (value.startsWith("STREAMING-AWS4-ECDSA-P256-SHA256")) {
            throw new SigV4Problem(Kind.UNSUPPORTED, "SigV4a chunk signatures (" + value + ") cannot be re-signed: let the client sign"
                    + " with SigV4");
        }
        if (value.startsWith("STREAMING-")) {
            throw new SigV4Problem(Kind.UNSUPPORTED, "the payload mode " + abbreviate(value) + " is not re-signed");
        }
        throw new SigV4Problem(Kind.MALFORMED, "x-amz-content-sha256 is neither a hex SHA-256 nor a payload mode S3 defines");
    }

    private static boolean hasBody(Map<String, List<String>> headers) {
        List<String> length = headers.get("content-length");
        return headers.containsKey("transfer-encoding") || length != null && !length.get(0).trim().equals("0");
    }

    private static String abbreviate(String text) {
        return text.length() <= 48 ? text : text.substring(0, 48) + "...";
    }
}
