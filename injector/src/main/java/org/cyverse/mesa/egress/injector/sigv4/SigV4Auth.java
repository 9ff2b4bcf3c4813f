package org.cyverse.mesa.egress.injector.sigv4;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.injector.sigv4.SigV4Problem.Kind;

/**
 * How a request is signed, as its {@code Authorization: AWS4-HMAC-SHA256 ...} header or its
 * presigned query ({@code X-Amz-Algorithm}, {@code X-Amz-Credential}, ...) says (AWS Signature
 * Version 4, "Authenticating requests"). Parsing refuses what is ambiguous: a part named twice,
 * a part missing, a signed header the request does not have, a date that is not the scope's.
 *
 * @param presigned whether the signature is in the query rather than a header
 * @param accessKeyId the {@code Credential=} key id
 * @param scopeDate the scope's {@code yyyyMMdd}
 * @param signedHeaders lowercase, as the client listed them
 * @param signature 64 lowercase hex digits
 * @param amzDate the {@code yyyyMMdd'T'HHmmss'Z'} the client signed at
 * @param expires a presigned URL's lifetime in seconds; 0 for a header
 */
record SigV4Auth(boolean presigned, String accessKeyId, String scopeDate, String region, String service, List<String> signedHeaders,
        String signature, String amzDate, long expires) {

    static final String ALGORITHM = "AWS4-HMAC-SHA256";
    /** The query parameters a presigned URL's signature consists of. */
    static final List<String> PRESIGN_PARAMS = List.of("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires",
            "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Security-Token");

    private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern AMZ_DATE = Pattern.compile("[0-9]{8}T[0-9]{6}Z");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9a-z-]+");
    private static final String SIGV4A = "SigV4a (AWS4-ECDSA-P256-SHA256) cannot be re-signed with the real key: let the client sign"
            + " with SigV4 (do not use multi-region access points; unset AWS_SIGV4A_SIGNING_REGION_SET)";

    /** What {@link #parse} found: no SigV4 signature at all, or one (the access key id read, the rest maybe broken). */
    record Found(String accessKeyId, SigV4Auth auth, SigV4Problem problem) {}

    /**
     * The signature of a request, {@code null} when it carries none (an anonymous request, or
     * another scheme such as a bearer token).
     *
     * @param authorization every {@code Authorization} value the request has
     */
    static Found parse(List<String> authorization, QueryParams query, Map<String, List<String>> headers) {
        boolean inQuery = query.has("X-Amz-Algorithm") || query.has("X-Amz-Credential") || query.has("X-Amz-Signature");
        String header = authorization.isEmpty() ? null : authorization.get(0);
        boolean aws = header != null && (header.startsWith("AWS4-") || header.startsWith("AWS "));
        if (!aws && !inQuery) {
            return null;
        }
        String keyId = null;
        try {
            if (aws && inQuery || authorization.size() > 1) {
                throw new SigV4Problem(Kind.MALFORMED, "the request is signed twice (two Authorization headers, or a header and a presigned query)");
            }
            if (aws) {
                if (header.startsWith("AWS ")) {
                    int colon = header.indexOf(':');
                    keyId = colon > 4 ? header.substring(4, colon).trim() : null;
                    throw new SigV4Problem(Kind.UNSUPPORTED, "Signature Version 2 (Authorization: AWS ...) is not re-signed: set the client"
                            + " to Signature Version 4 (boto3/aws: signature_version = s3v4)");
                }
                Map<String, String> parts = headerParts(header);
                keyId = keyIdOf(parts.get("Credential"));
                String algorithm = header.substring(0, header.indexOf(' ') < 0 ? header.length() : header.indexOf(' '));
                if (algorithm.equals("AWS4-ECDSA-P256-SHA256")) {
                    throw new SigV4Problem(Kind.UNSUPPORTED, SIGV4A);
                }
                if (!algorithm.equals(ALGORITHM)) {
                    throw new SigV4Problem(Kind.UNSUPPORTED, "the signing algorithm " + abbreviate(algorithm) + " is not re-signed; only "
                            + ALGORITHM);
                }
                String amzDate = single(headers, "x-amz-date");
                return new Found(keyId, of(false, parts.get("Credential"), parts.get("SignedHeaders"), parts.get("Signature"), amzDate, 0,
                        headers), null);
            }
            keyId = keyIdOf(query.single("X-Amz-Credential"));
            String algorithm = query.single("X-Amz-Algorithm");
            if ("AWS4-ECDSA-P256-SHA256".equals(algorithm)) {
                throw new SigV4Problem(Kind.UNSUPPORTED, SIGV4A);
            }
            if (!ALGORITHM.equals(algorithm)) {
                throw new SigV4Problem(algorithm == null ? Kind.MALFORMED : Kind.UNSUPPORTED, algorithm == null
                        ? "the presigned query has no X-Amz-Algorithm" : "the presigned algorithm " + abbreviate(algorithm) + " is not re-signed");
            }
            String expires = query.single("X-Amz-Expires");
            long seconds = expires != null && expires.matches("[0-9]{1,6}") ? Long.parseLong(expires) : -1;
            if (seconds < 1 || seconds > 604800) {
                throw new SigV4Problem(Kind.MALFORMED, "X-Amz-Expires must be 1 to 604800 seconds");
            }
            return new Found(keyId, of(true, query.single("X-Amz-Credential"), query.single("X-Amz-SignedHeaders"),
                    query.single("X-Amz-Signature"), query.single("X-Amz-Date"), seconds, headers), null);
        } catch (SigV4Problem problem) {
            return new Found(keyId, null, problem);
        }
    }

    private static SigV4Auth of(boolean presigned, String credential, String signedHeaders, String signature, String amzDate, long expires,
            Map<String, List<String>> headers) throws SigV4Problem {
        if (credential == null || signedHeaders == null || signature == null) {
            throw new SigV4Problem(Kind.MALFORMED, "the signature needs Credential, SignedHeaders and Signature");
        }
        String[] scope = credential.split("/", -1);
        if (scope.length != 5 || !scope[4].equals("aws4_request") || !scope[1].matches("[0-9]{8}") || scope[2].isEmpty()
                || scope[3].isEmpty()) {
            throw new SigV4Problem(Kind.MALFORMED, "Credential must be KEY/yyyyMMdd/REGION/SERVICE/aws4_request");
        }
        if (!HEX64.matcher(signature).matches()) {
            throw new SigV4Problem(Kind.MALFORMED, "Signature must be 64 lowercase hex digits");
        }
        if (amzDate == null || !AMZ_DATE.matcher(amzDate).matches()) {
            throw new SigV4Problem(Kind.MALFORMED, "the request needs X-Amz-Date as yyyyMMdd'T'HHmmss'Z' (a Date header alone is not re-signed)");
        }
        if (!amzDate.startsWith(scope[1])) {
            throw new SigV4Problem(Kind.MALFORMED, "X-Amz-Date is not on the day of the credential scope");
        }
        List<String> names = Arrays.asList(signedHeaders.split(";", -1));
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (!HEADER_NAME.matcher(name).matches() || i > 0 && names.get(i - 1).compareTo(name) >= 0) {
                throw new SigV4Problem(Kind.MALFORMED, "SignedHeaders must be lowercase header names, sorted, each once");
            }
            if (!headers.containsKey(name)) {
                throw new SigV4Problem(Kind.MALFORMED, "the signed header " + name + " is not in the request");
            }
        }
        if (!names.contains("host")) {
            throw new SigV4Problem(Kind.MALFORMED, "SignedHeaders must include host");
        }
        return new SigV4Auth(presigned, scope[0], scope[1], scope[2], scope[3], List.copyOf(names), signature, amzDate, expires);
    }

    /** {@code Credential=..., SignedHeaders=..., Signature=...}: each part once, separated by commas (spaces optional). */
    private static Map<String, String> headerParts(String header) throws SigV4Problem {
        int space = header.indexOf(' ');
        Map<String, String> parts = new HashMap<>();
        if (space < 0) {
            throw new SigV4Problem(Kind.MALFORMED, "the Authorization header has no Credential, SignedHeaders or Signature");
        }
        for (String part : header.substring(space + 1).split(",", -1)) {
            String p = part.trim();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new SigV4Problem(Kind.MALFORMED, "the Authorization header has a part that is not NAME=VALUE");
            }
            String name = p.substring(0, eq);
            if (parts.put(name, p.substring(eq + 1)) != null) {
                throw new SigV4Problem(Kind.MALFORMED, "the Authorization header names " + abbreviate(name) + " twice");
            }
        }
        return parts;
    }

    private static String keyIdOf(String credential) {
        if (credential == null) {
            return null;
        }
        int slash = credential.indexOf('/');
        return slash < 0 ? credential : credential.substring(0, slash);
    }

    private static String single(Map<String, List<String>> headers, String name) throws SigV4Problem {
        List<String> values = headers.get(name);
        if (values != null && values.size() > 1) {
            throw new SigV4Problem(Kind.MALFORMED, "the request has " + name + " twice");
        }
        return values == null ? null : values.get(0).trim();
    }

    /** The scope the client signed under: {@code yyyyMMdd/REGION/SERVICE/aws4_request}. */
    String scope() {
        return scopeDate + "/" + region + "/" + service + "/aws4_request";
    }

    /** Whether the S3 rules apply: the path is signed as sent (not normalized, not encoded again). */
    boolean s3() {
        return service.equals("s3") || service.equals("s3-object-lambda");
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
