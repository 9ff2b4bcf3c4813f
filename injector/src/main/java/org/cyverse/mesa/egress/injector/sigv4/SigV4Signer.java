package org.cyverse.mesa.egress.injector.sigv4;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.cyverse.mesa.egress.injector.sigv4.SigV4Problem.Kind;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.internal.signer.V4CanonicalRequest;

/**
 * The arithmetic of AWS Signature Version 4. The canonical request is the AWS SDK for Java v2's
 * own ({@code V4CanonicalRequest}, the class its signer uses; pinned by the SDK BOM and held to
 * AWS's published test suite by {@code SigV4SignerTest}): the SDK's public signer cannot serve a
 * proxy, because it hashes the body itself and always rewrites {@code x-amz-content-sha256},
 * while the proxy must keep the client's payload hash and stream the body. What follows the
 * canonical request (the string to sign, the HMAC-SHA256 key chain, the chunk signatures) is a
 * few lines of the published algorithm, written here on the JDK's {@link Mac}.
 */
final class SigV4Signer {

    /** SHA-256 of nothing: the payload hash of a request without a body. */
    static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final HexFormat HEX = HexFormat.of();

    private SigV4Signer() {}

    /**
     * What a signature covers.
     *
     * @param path the path as sent (percent-encoded once)
     * @param query the query, without a presigned URL's {@code X-Amz-Signature}
     * @param headers the signed headers only, names as sent, every value in order
     * @param payloadHash what the client declared ({@code x-amz-content-sha256}) or implied
     * @param s3 whether S3's rules apply: the path neither normalized nor encoded again
     */
    record Signable(String method, String host, int port, String path, QueryParams query, List<Map.Entry<String, String>> headers,
            String payloadHash, boolean s3) {}

    /**
     * The canonical request of {@code signable}, refused when its signed headers would not be
     * exactly {@code signedHeaders} (the SDK leaves out a few headers no client should sign, such
     * as {@code user-agent}: such a signature cannot be reproduced, so it is not re-signed).
     */
    static String canonicalRequest(Signable signable, List<String> signedHeaders) throws SigV4Problem {
        SdkHttpMethod method;
        try {
            method = SdkHttpMethod.fromValue(signable.method());
        } catch (IllegalArgumentException e) {
            throw new SigV4Problem(Kind.UNSUPPORTED, "the method " + signable.method() + " is not re-signed");
        }
        SdkHttpRequest.Builder request = SdkHttpRequest.builder().method(method).protocol("https").host(signable.host())
                .port(signable.port()).encodedPath(signable.path().isEmpty() ? "/" : signable.path());
        for (QueryParams.Param p : signable.query().params()) {
            request.appendRawQueryParameter(p.name(), p.value());
        }
        for (Map.Entry<String, String> h : signable.headers()) {
            request.appendHeader(h.getKey(), h.getValue());
        }
        boolean s3 = signable.s3();
        V4CanonicalRequest canonical = new V4CanonicalRequest(request.build(), signable.payloadHash(), new V4CanonicalRequest.Options(!s3, !s3));
        if (!canonical.getSignedHeadersString().equals(String.join(";", signedHeaders))) {
            throw new SigV4Problem(Kind.UNSUPPORTED, "the signed headers " + String.join(";", signedHeaders) + " cannot be reproduced"
                    + " (a client should not sign user-agent, expect or connection)");
        }
        return canonical.getCanonicalRequestString();
    }

    /** The string to sign (AWS4-HMAC-SHA256, date, scope, hash of the canonical request). */
    static String stringToSign(String amzDate, String scope, String canonicalRequest) {
        return SigV4Auth.ALGORITHM + "\n" + amzDate + "\n" + scope + "\n" + sha256Hex(canonicalRequest.getBytes(StandardCharsets.UTF_8));
    }

    /** The signing key: HMAC-SHA256 of date, region, service and {@code aws4_request}, keyed by {@code AWS4} and the secret. */
    static byte[] signingKey(String secretAccessKey, String date, String region, String service) {
        byte[] key = hmac(("AWS4" + secretAccessKey).getBytes(StandardCharsets.UTF_8), date);
        key = hmac(key, region);
        key = hmac(key, service);
        return hmac(key, "aws4_request");
    }

    /** The hex signature of {@code stringToSign} under {@code signingKey}. */
    static String signature(byte[] signingKey, String stringToSign) {
        return HEX.formatHex(hmac(signingKey, stringToSign));
    }

    /**
     * The signature of one aws-chunked chunk (S3 "Signature calculations for the Authorization
     * header: transferring payload in multiple chunks"): chained to the previous signature.
     */
    static String chunkSignature(byte[] signingKey, String amzDate, String scope, String previous, String chunkSha256Hex) {
        return signature(signingKey, "AWS4-HMAC-SHA256-PAYLOAD\n" + amzDate + "\n" + scope + "\n" + previous + "\n" + EMPTY_SHA256 + "\n"
                + chunkSha256Hex);
    }

    /**
     * The signature of an aws-chunked body's trailer ({@code x-amz-trailer-signature}, S3 "Signature
     * calculations for ... trailing headers"): over the trailer fields as {@code name:value\n} lines,
     * chained to the last chunk's signature.
     */
    static String trailerSignature(byte[] signingKey, String amzDate, String scope, String previous, String trailerSha256Hex) {
        return signature(signingKey, "AWS4-HMAC-SHA256-TRAILER\n" + amzDate + "\n" + scope + "\n" + previous + "\n" + trailerSha256Hex);
    }

    /** Whether two hex signatures are equal, in time independent of where they differ. */
    static boolean same(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }

    static String sha256Hex(byte[] data) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }
}
