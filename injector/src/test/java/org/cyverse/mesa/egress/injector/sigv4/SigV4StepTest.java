package org.cyverse.mesa.egress.injector.sigv4;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStore;
import org.cyverse.mesa.egress.injector.EnvSecretSource;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.CredentialLimits;
import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SigV4 re-signing against AWS's published vectors: the Signature Version 4 test suite
 * (docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html, 2015 edition: key
 * AKIDEXAMPLE, us-east-1, service "service", 20150830T123600Z) and the S3 examples of "Signature
 * calculations for the Authorization header" and "Authenticating requests: using query
 * parameters" (key AKIAIOSFODNN7EXAMPLE, 20130524T000000Z). Each request carries AWS's own
 * signature: the step must accept it as the sentinel's (it reproduced AWS's canonical request),
 * and, with the real key set to the same pair at the same instant, write AWS's signature again.
 */
class SigV4StepTest {

    static final String SUITE_KEY = "AKIDEXAMPLE";
    static final String SUITE_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    static final String S3_KEY = "AKIAIOSFODNN7EXAMPLE";
    static final String S3_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    static final Instant SUITE_TIME = Instant.parse("2015-08-30T12:36:00Z");
    static final Instant S3_TIME = Instant.parse("2013-05-24T00:00:00Z");
    static final String REAL_KEY = "AKIAREALKEY000000001";
    static final String REAL_SECRET = "realSecretAccessKey/0123456789abcdefghijklmno";

    private static ScheduledExecutorService executor;
    private static CredentialStore store;

    @BeforeAll
    static void values() {
        executor = Executors.newSingleThreadScheduledExecutor();
        List<CredentialSpec> specs = List.of(spec("suite", "example.amazonaws.com", SUITE_KEY, SUITE_SECRET, SUITE_KEY),
                spec("s3", "*.amazonaws.com", S3_KEY, S3_SECRET, S3_KEY), spec("osn", "osn.example.org", S3_KEY.replace("AKIA", "SNTL"),
                        S3_SECRET, REAL_KEY));
        Map<String, String> env = Map.of("SUITE", SUITE_SECRET, "S3", S3_SECRET, "OSN", REAL_SECRET);
        store = new CredentialStore(specs, Map.of("env", new EnvSecretSource(env)), executor, (c, o) -> { });
        store.start();
        store.awaitResolved(Duration.ofSeconds(10));
        assertEquals(null, store.notReadyReason());
    }

    @AfterAll
    static void close() {
        store.close();
        executor.shutdownNow();
    }

    static CredentialSpec spec(String name, String host, String sentinelKey, String sentinelSecret, String realKey) {
        return new CredentialSpec(name, List.of(HostPattern.parse(host)), Set.of(443), Set.of(), List.of(), sentinelKey, null,
                "Bearer {secret}", SecretRef.parse("env:" + name.toUpperCase()), false, false,
                new SigV4Keys(sentinelKey, sentinelSecret, realKey), CredentialLimits.NONE);
    }

    static SigV4Step step(Instant now) {
        return new SigV4Step(List.of(spec("suite", "example.amazonaws.com", SUITE_KEY, SUITE_SECRET, SUITE_KEY),
                spec("s3", "*.amazonaws.com", S3_KEY, S3_SECRET, S3_KEY),
                spec("osn", "osn.example.org", S3_KEY.replace("AKIA", "SNTL"), S3_SECRET, REAL_KEY)), store,
                Clock.fixed(now, ZoneOffset.UTC));
    }

    static OutgoingRequest request(String method, String host, String pathAndQuery, String... headers) {
        List<Map.Entry<String, String>> list = new ArrayList<>();
        for (String h : headers) {
            int colon = h.indexOf(':');
            list.add(Map.entry(h.substring(0, colon), h.substring(colon + 1)));
        }
        return new OutgoingRequest(true, dest(host), method, pathAndQuery, list);
    }

    static Destination dest(String host) {
        try {
            return Destination.parse(host, 443);
        } catch (org.cyverse.mesa.egress.allowlist.InvalidDestinationException e) {
            throw new AssertionError(e);
        }
    }

    static String suiteAuth(String signedHeaders, String signature) {
        return "Authorization:AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders="
                + signedHeaders + ", Signature=" + signature;
    }

    /** The suite's requests (as its .req files give them) and the Authorization AWS computed for each. */
    static Stream<Arguments> suite() {
        String host = "Host:example.amazonaws.com";
        String date = "X-Amz-Date:20150830T123600Z";
        return Stream.of(
                Arguments.of("get-vanilla", "GET", "/", List.of(host, date),
                        suiteAuth("host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")),
                Arguments.of("get-vanilla-empty-query-key", "GET", "/?Param1=value1", List.of(host, date),
                        suiteAuth("host;x-amz-date", "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb")),
                Arguments.of("get-vanilla-query-order-key-case", "GET", "/?Param2=value2&Param1=value1", List.of(host, date),
                        suiteAuth("host;x-amz-date", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")),
                Arguments.of("get-vanilla-query-order-key", "GET", "/?Param1=value2&Param1=Value1", List.of(host, date),
                        suiteAuth("host;x-amz-date", "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1")),
                Arguments.of("get-header-value-order", "GET", "/", List.of(host, "My-Header1:value4", "My-Header1:value1",
                        "My-Header1:value3", "My-Header1:value2", date),
                        suiteAuth("host;my-header1;x-amz-date", "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01")),
                Arguments.of("get-header-key-duplicate", "GET", "/", List.of(host, "My-Header1:value2", "My-Header1:value2",
                        "My-Header1:value1", date),
                        suiteAuth("host;my-header1;x-amz-date", "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea")),
                Arguments.of("post-vanilla", "POST", "/", List.of(host, date),
                        suiteAuth("host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b")),
                Arguments.of("post-vanilla-query", "POST", "/?Param1=value1", List.of(host, date),
                        suiteAuth("host;x-amz-date", "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11")),
                Arguments.of("normalize-path/get-relative-relative", "GET", "/example1/example2/../..", List.of(host, date),
                        suiteAuth("host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")),
                Arguments.of("normalize-path/get-slash-pointless-dot", "GET", "/./example", List.of(host, date),
                        suiteAuth("host;x-amz-date", "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("suite")
    void theSuitesSignatureIsAcceptedAndWrittenAgainWithTheSameKeyAtTheSameInstant(String name, String method, String pathAndQuery,
            List<String> headers, String authorization) {
        List<String> signed = new ArrayList<>(headers);
        signed.add(authorization);
        Injection out = step(SUITE_TIME).apply(request(method, "example.amazonaws.com", pathAndQuery, signed.toArray(String[]::new)));
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals(authorization.substring("Authorization:".length()), header(out, "Authorization"));
        assertEquals("20150830T123600Z", header(out, "X-Amz-Date"));
    }

    @Test
    void aSessionTokenTheClientSignedIsVerifiedThenDroppedWhenTheRealKeyHasNone() {
        String token = "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7"
                + "mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT"
                + "38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";
        // post-sts-token/post-sts-header-before: the token is one of the signed headers.
        Injection out = step(SUITE_TIME).apply(request("POST", "example.amazonaws.com", "/", "Host:example.amazonaws.com",
                "X-Amz-Date:20150830T123600Z", "X-Amz-Security-Token:" + token, suiteAuth("host;x-amz-date;x-amz-security-token",
                        "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead")));
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals(null, header(out, "X-Amz-Security-Token"), "the agent's token is not the real key's");
        // post-vanilla: the same request without the token, as the real key (which has none) signs it.
        assertEquals("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date,"
                + " Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b", header(out, "Authorization"));
    }

    @Test
    void theS3GetObjectExampleIsAcceptedAndWrittenAgain() {
        String auth = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
        Injection out = step(S3_TIME).apply(request("GET", "examplebucket.s3.amazonaws.com", "/test.txt",
                "Host:examplebucket.s3.amazonaws.com", "Range:bytes=0-9", "x-amz-content-sha256:" + SigV4Signer.EMPTY_SHA256,
                "x-amz-date:20130524T000000Z", "Authorization:" + auth));
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals(auth.replace(",", ", "), header(out, "Authorization"));
    }

    @Test
    void theS3PresignedExampleIsAcceptedAndItsQueryWrittenAgain() {
        String query = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";
        Injection out = step(S3_TIME).apply(request("GET", "examplebucket.s3.amazonaws.com", "/test.txt?" + query,
                "Host:examplebucket.s3.amazonaws.com"));
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals("/test.txt?" + query, out.pathAndQuery());
    }

    @Test
    void theS3ChunkedUploadExamplesSeedAndChunkSignatures() throws SigV4Problem {
        // "Transferring payload in multiple chunks": 66,560 bytes of 'a' in chunks of 65,536, 1,024 and 0.
        List<Map.Entry<String, String>> headers = List.of(Map.entry("content-encoding", "aws-chunked"), Map.entry("content-length", "66824"),
                Map.entry("host", "s3.amazonaws.com"), Map.entry("x-amz-content-sha256", PayloadMode.SIGNED_CHUNKS),
                Map.entry("x-amz-date", "20130524T000000Z"), Map.entry("x-amz-decoded-content-length", "66560"),
                Map.entry("x-amz-storage-class", "REDUCED_REDUNDANCY"));
        List<String> names = headers.stream().map(Map.Entry::getKey).toList();
        String canonical = SigV4Signer.canonicalRequest(new SigV4Signer.Signable("PUT", "s3.amazonaws.com", 443,
                "/examplebucket/chunkObject.txt", QueryParams.parse(null), headers, PayloadMode.SIGNED_CHUNKS, true), names);
        byte[] key = SigV4Signer.signingKey(S3_SECRET, "20130524", "us-east-1", "s3");
        String scope = "20130524/us-east-1/s3/aws4_request";
        String seed = SigV4Signer.signature(key, SigV4Signer.stringToSign("20130524T000000Z", scope, canonical));
        assertEquals("4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9", seed);
        String first = SigV4Signer.chunkSignature(key, "20130524T000000Z", scope, seed, SigV4Signer.sha256Hex(a(65536)));
        assertEquals("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648", first);
        String second = SigV4Signer.chunkSignature(key, "20130524T000000Z", scope, first, SigV4Signer.sha256Hex(a(1024)));
        assertEquals("0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497", second);
        assertEquals("b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
                SigV4Signer.chunkSignature(key, "20130524T000000Z", scope, second, SigV4Signer.EMPTY_SHA256));
    }

    private static byte[] a(int n) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) 'a');
        return b;
    }

    static String header(Injection out, String name) {
        return out.headers().stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).findFirst().orElse(null);
    }

    /** A request as the AWS SDK's own signer signs it with the agent's sentinel pair (what an S3 client sends). */
    static OutgoingRequest sdkSigned(String method, String pathAndQuery, Instant at, String key, String secret, String payload,
            String... extra) {
        return sdkSigned("osn.example.org", method, pathAndQuery, at, key, secret, payload, extra);
    }

    static OutgoingRequest sdkSigned(String hostField, String method, String pathAndQuery, Instant at, String key, String secret,
            String payload, String... extra) {
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method))
                .uri(URI.create("https://osn.example.org" + pathAndQuery)).putHeader("Host", hostField);
        for (String h : extra) {
            b.appendHeader(h.substring(0, h.indexOf(':')), h.substring(h.indexOf(':') + 1));
        }
        SignedRequest signed = AwsV4HttpSigner.create().sign(r -> r.request(b.build()).identity(AwsCredentialsIdentity.create(key, secret))
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1").putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false).putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, payload != null)
                .payload(payload == null ? null : ContentStreamProvider.fromUtf8String(payload))
                .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(at, ZoneOffset.UTC)));
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        signed.request().forEachHeader((name, values) -> values.forEach(v -> headers.add(Map.entry(name, v))));
        String query = signed.request().encodedQueryParameters().map(q -> "?" + q).orElse("");
        return new OutgoingRequest(true, dest("osn.example.org"), method, signed.request().encodedPath() + query, headers);
    }

    static final String SENTINEL_KEY = S3_KEY.replace("AKIA", "SNTL");

    @Test
    void aRequestTheSdkSignedWithTheSentinelIsReSignedWithTheRealKeyAtTheProxysClock() {
        Instant now = Instant.parse("2026-12-02T11:00:00Z");
        OutgoingRequest agent = sdkSigned("GET", "/bucket/a%20key~%2B.txt?list-type=2&prefix=a%2Fb", now.minusSeconds(90), SENTINEL_KEY,
                S3_SECRET, null, "Range:bytes=0-9");
        Injection out = step(now).apply(agent);
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals("20261202T110000Z", header(out, "X-Amz-Date"));
        String authorization = header(out, "Authorization");
        assertTrue(authorization.startsWith("AWS4-HMAC-SHA256 Credential=" + REAL_KEY + "/20261202/us-east-1/s3/aws4_request, "),
                authorization);
        assertFalse(out.headers().toString().contains(SENTINEL_KEY), "the sentinel key id does not go upstream");
        // What the upstream does: check the signature with the real pair.
        Injection upstream = new SigV4Step(List.of(spec("osn", "osn.example.org", REAL_KEY, REAL_SECRET, REAL_KEY)), store,
                Clock.fixed(now, ZoneOffset.UTC)).apply(new OutgoingRequest(true, agent.destination(), "GET", out.pathAndQuery(),
                out.headers()));
        assertEquals(Injection.Outcome.INJECTED, upstream.outcome(), upstream.detail());
    }

    @Test
    void theHostIsSignedAsTheProxySendsIt() {
        Instant now = Instant.parse("2026-12-02T11:00:00Z");
        OutgoingRequest agent = sdkSigned("OSN.example.org:443", "GET", "/bucket/k", now, SENTINEL_KEY, S3_SECRET, null);
        Injection out = step(now).apply(agent);
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals("osn.example.org", header(out, "Host"), "RFC 9112 3.2.2: the proxy sends the target's authority");
        Injection upstream = new SigV4Step(List.of(spec("osn", "osn.example.org", REAL_KEY, REAL_SECRET, REAL_KEY)), store,
                Clock.fixed(now, ZoneOffset.UTC)).apply(new OutgoingRequest(true, agent.destination(), "GET", out.pathAndQuery(),
                out.headers()));
        assertEquals(Injection.Outcome.INJECTED, upstream.outcome(), upstream.detail());
    }

    @Test
    void anAnswerThatEchoesTheRealKeyIdGivesTheAgentItsSentinel() {
        org.cyverse.mesa.egress.injector.Injector injector = new org.cyverse.mesa.egress.injector.Injector(List.of(
                spec("osn", "osn.example.org", SENTINEL_KEY, S3_SECRET, REAL_KEY)), store);
        String error = "<Error><Code>SignatureDoesNotMatch</Code><AWSAccessKeyId>" + REAL_KEY + "</AWSAccessKeyId></Error>";
        assertEquals(error.replace(REAL_KEY, SENTINEL_KEY), injector.scrub(error));
        assertEquals("secret " + S3_SECRET, injector.scrub("secret " + REAL_SECRET), "the real secret key comes back as the sentinel secret");
    }

    @Test
    void aSignedBodyHashIsKeptForTheUpstreamToCheck() {
        Instant now = Instant.parse("2026-12-02T11:00:00Z");
        OutgoingRequest agent = sdkSigned("PUT", "/bucket/k", now, SENTINEL_KEY, S3_SECRET, "hello", "Content-Length:5");
        String declared = header(new Injection(Injection.Outcome.UNCHANGED, null, "/", agent.headers(), Map.of(), List.of(), "", null),
                "x-amz-content-sha256");
        assertEquals(SigV4Signer.sha256Hex("hello".getBytes(java.nio.charset.StandardCharsets.UTF_8)), declared);
        Injection out = step(now).apply(agent);
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals(declared, header(out, "x-amz-content-sha256"));
    }

    @Test
    void aPresignedUrlMadeWithTheSentinelIsReSignedForWhatIsLeftOfItsLifetime() {
        Instant signedAt = Instant.parse("2026-12-02T10:00:00Z");
        SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.GET).uri(URI.create("https://osn.example.org/bucket/k"))
                .putHeader("Host", "osn.example.org").build();
        SignedRequest presigned = AwsV4HttpSigner.create().sign(r -> r.request(request)
                .identity(AwsCredentialsIdentity.create(SENTINEL_KEY, S3_SECRET))
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1").putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.AUTH_LOCATION, AwsV4HttpSigner.AuthLocation.QUERY_STRING)
                .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, Duration.ofHours(2))
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false).putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(signedAt, ZoneOffset.UTC)));
        String pathAndQuery = presigned.request().encodedPath() + "?" + presigned.request().encodedQueryParameters().orElseThrow();
        OutgoingRequest agent = new OutgoingRequest(true, dest("osn.example.org"), "GET", pathAndQuery,
                List.of(Map.entry("Host", "osn.example.org")));

        Injection out = step(signedAt.plus(Duration.ofMinutes(30))).apply(agent);
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertTrue(out.pathAndQuery().contains("X-Amz-Credential=" + REAL_KEY + "%2F20261202%2Fus-east-1%2Fs3%2Faws4_request"),
                out.pathAndQuery());
        assertTrue(out.pathAndQuery().contains("X-Amz-Date=20261202T103000Z&X-Amz-Expires=5400&"), out.pathAndQuery());
        assertFalse(out.pathAndQuery().contains(SENTINEL_KEY));

        Injection expired = step(signedAt.plus(Duration.ofHours(2))).apply(agent);
        assertEquals(Injection.Outcome.BAD_SIGNATURE, expired.outcome());
        assertTrue(expired.detail().contains("expired"), expired.detail());
    }

    static Stream<Arguments> refused() {
        String date = "x-amz-date:20261202T110000Z";
        String sha = "x-amz-content-sha256:" + SigV4Signer.EMPTY_SHA256;
        String cred = "Credential=" + SENTINEL_KEY + "/20261202/us-east-1/s3/aws4_request";
        String sig = "Signature=" + "0".repeat(64);
        return Stream.of(
                Arguments.of("SigV4a", List.of(date, sha, "Authorization:AWS4-ECDSA-P256-SHA256 " + cred + ", SignedHeaders=host, " + sig),
                        Injection.Outcome.UNSUPPORTED, "SigV4a"),
                Arguments.of("signature version 2", List.of("Authorization:AWS " + SENTINEL_KEY + ":c2lnbmF0dXJl"),
                        Injection.Outcome.UNSUPPORTED, "s3v4"),
                Arguments.of("another key id", List.of(date, sha, "Authorization:AWS4-HMAC-SHA256 Credential=AKIAOTHERKEY00000001/20261202/"
                        + "us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, " + sig), Injection.Outcome.MISMATCH, "not its sentinel"),
                Arguments.of("Credential twice", List.of(date, sha, "Authorization:AWS4-HMAC-SHA256 " + cred + ", " + cred
                        + ", SignedHeaders=host;x-amz-date, " + sig), Injection.Outcome.MALFORMED, "twice"),
                Arguments.of("no SignedHeaders", List.of(date, sha, "Authorization:AWS4-HMAC-SHA256 " + cred + ", " + sig),
                        Injection.Outcome.MALFORMED, "SignedHeaders"),
                Arguments.of("a signed header that is absent", List.of(date, sha, "Authorization:AWS4-HMAC-SHA256 " + cred
                        + ", SignedHeaders=host;x-amz-date;x-amz-meta-gone, " + sig), Injection.Outcome.MALFORMED, "x-amz-meta-gone"),
                Arguments.of("a scope of another day", List.of("x-amz-date:20261203T000000Z", sha, "Authorization:AWS4-HMAC-SHA256 " + cred
                        + ", SignedHeaders=host;x-amz-date, " + sig), Injection.Outcome.MALFORMED, "day"),
                Arguments.of("a wrong signature", List.of(date, sha, "Authorization:AWS4-HMAC-SHA256 " + cred
                        + ", SignedHeaders=host;x-amz-date, " + sig), Injection.Outcome.BAD_SIGNATURE, "sentinel secret key"),
                Arguments.of("a payload hash that is no hash", List.of(date, "x-amz-content-sha256:abc", "Authorization:AWS4-HMAC-SHA256 " + cred
                        + ", SignedHeaders=host;x-amz-date, " + sig), Injection.Outcome.MALFORMED, "x-amz-content-sha256"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void aSignatureThatCannotBeReSignedIsRefusedNamingWhy(String name, List<String> headers, Injection.Outcome outcome, String says) {
        List<String> all = new ArrayList<>(List.of("Host:osn.example.org"));
        all.addAll(headers);
        Injection out = step(Instant.parse("2026-12-02T11:00:00Z")).apply(request("GET", "osn.example.org", "/bucket/k",
                all.toArray(String[]::new)));
        assertEquals(outcome, out.outcome(), out.detail());
        assertEquals("osn", out.credential());
        assertTrue(out.detail().contains(says), out.detail());
        assertFalse(out.detail().contains(S3_SECRET) || out.detail().contains(REAL_SECRET));
    }

    /** A PUT of {@code object} with signed chunks, as the SDK's own signer writes it with the sentinel pair; with a checksum trailer when given. */
    static SignedRequest sdkSignedChunks(byte[] object, Instant at, software.amazon.awssdk.checksums.spi.ChecksumAlgorithm checksum) {
        SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.PUT).uri(URI.create("https://osn.example.org/bucket/k"))
                .putHeader("Host", "osn.example.org").putHeader("Content-Length", Integer.toString(object.length)).build();
        return AwsV4HttpSigner.create().sign(r -> {
            r.request(request).identity(AwsCredentialsIdentity.create(SENTINEL_KEY, S3_SECRET))
                    .payload(() -> new java.io.ByteArrayInputStream(object))
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1").putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false).putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                    .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, true).putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, true)
                    .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(at, ZoneOffset.UTC));
            if (checksum != null) {
                r.putProperty(AwsV4HttpSigner.CHECKSUM_ALGORITHM, checksum);
            }
        });
    }

    static List<Map.Entry<String, String>> headers(SignedRequest signed) {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        signed.request().forEachHeader((name, values) -> values.forEach(v -> headers.add(Map.entry(name, v))));
        return headers;
    }

    @Test
    void signedChunksTheSdkWroteAreReSignedInTheRealKeysChain() throws Exception {
        Instant now = Instant.parse("2026-12-02T11:00:00Z");
        byte[] object = "0123456789".repeat(30000).getBytes(java.nio.charset.StandardCharsets.US_ASCII); // 300,000 bytes: 3 chunks
        SignedRequest signed = sdkSignedChunks(object, now.minusSeconds(5), null);
        List<Map.Entry<String, String>> headers = headers(signed);
        assertEquals(PayloadMode.SIGNED_CHUNKS, header(new Injection(Injection.Outcome.UNCHANGED, null, "/", headers, Map.of(), List.of(),
                "", null), "x-amz-content-sha256"));
        byte[] body = signed.payload().orElseThrow().newStream().readAllBytes();

        Injection out = step(now).apply(new OutgoingRequest(true, dest("osn.example.org"), "PUT", "/bucket/k", headers));
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals("osn", resigning(out).credential());
        byte[] resigned = ChunkResignerTest.run(resigning(out).start(), body, 10000);
        assertEquals(body.length, resigned.length, "Content-Length stays true");
        String seed = header(out, "Authorization").substring(header(out, "Authorization").indexOf("Signature=") + 10);
        byte[] realKey = SigV4Signer.signingKey(REAL_SECRET, "20261202", "us-east-1", "s3");
        ChunkResigner.Chain upstream = new ChunkResigner.Chain(realKey, "20261202T110000Z", "20261202/us-east-1/s3/aws4_request", seed);
        ChunkResigner.Chain same = new ChunkResigner.Chain(realKey, "20261202T110000Z", "20261202/us-east-1/s3/aws4_request", seed);
        assertArrayEquals(resigned, ChunkResignerTest.run(new ChunkResigner(upstream, same, 1 << 20), resigned, 4096),
                "the upstream finds every chunk signed by the real key, chained to the new seed");

        byte[] changed = body.clone();
        changed[body.length / 2] ^= 1;
        assertThrows(ChunkResigner.ChunkException.class, () -> ChunkResignerTest.run(resigning(out).start(), changed, 10000),
                "a chunk changed after the client signed it is not re-signed");
    }

    @Test
    void signedChunksWithASignedChecksumTrailerAreReSignedTrailerAndAll() throws Exception {
        Instant now = Instant.parse("2026-12-02T11:00:00Z");
        byte[] object = "0123456789".repeat(30000).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        SignedRequest signed = sdkSignedChunks(object, now.minusSeconds(5), software.amazon.awssdk.checksums.DefaultChecksumAlgorithm.CRC32);
        List<Map.Entry<String, String>> headers = headers(signed);
        assertEquals(PayloadMode.SIGNED_CHUNKS_TRAILER, header(new Injection(Injection.Outcome.UNCHANGED, null, "/", headers, Map.of(),
                List.of(), "", null), "x-amz-content-sha256"));
        byte[] body = signed.payload().orElseThrow().newStream().readAllBytes();
        String text = new String(body, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(text.contains("x-amz-checksum-crc32:") && text.contains("x-amz-trailer-signature:"), text.substring(text.length() - 200));

        Injection out = step(now).apply(new OutgoingRequest(true, dest("osn.example.org"), "PUT", "/bucket/k", headers));
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        byte[] resigned = ChunkResignerTest.run(resigning(out).start(), body, 7777);
        assertEquals(body.length, resigned.length);
        String seed = header(out, "Authorization").substring(header(out, "Authorization").indexOf("Signature=") + 10);
        byte[] realKey = SigV4Signer.signingKey(REAL_SECRET, "20261202", "us-east-1", "s3");
        String realScope = "20261202/us-east-1/s3/aws4_request";
        assertArrayEquals(resigned, ChunkResignerTest.run(new ChunkResigner(new ChunkResigner.Chain(realKey, "20261202T110000Z", realScope,
                seed), new ChunkResigner.Chain(realKey, "20261202T110000Z", realScope, seed), 1 << 20, true), resigned, 4096),
                "chunks and trailer verify in the real key's chain");
        String resignedText = new String(resigned, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals(text.substring(text.indexOf("x-amz-checksum-crc32:"), text.indexOf("x-amz-trailer-signature:")),
                resignedText.substring(resignedText.indexOf("x-amz-checksum-crc32:"), resignedText.indexOf("x-amz-trailer-signature:")),
                "the checksum goes as the client computed it");

        byte[] changed = body.clone();
        int crc = text.indexOf("x-amz-checksum-crc32:") + "x-amz-checksum-crc32:".length();
        changed[crc] = (byte) (changed[crc] == 'A' ? 'B' : 'A');
        ChunkResigner.ChunkException refused = assertThrows(ChunkResigner.ChunkException.class,
                () -> ChunkResignerTest.run(resigning(out).start(), changed, 7777), "a changed checksum is not re-signed");
        assertTrue(refused.getMessage().contains("trailer"), refused.getMessage());
    }

    @Test
    void anUnsignedRequestOrOneToAnotherHostIsLeftAlone() {
        Injection anonymous = step(Instant.now()).apply(request("GET", "osn.example.org", "/bucket/k", "Host:osn.example.org"));
        assertEquals(Injection.Outcome.UNCHANGED, anonymous.outcome());
        Injection elsewhere = step(Instant.now()).apply(request("GET", "pypi.org", "/simple/", "Host:pypi.org",
                "Authorization:AWS4-HMAC-SHA256 Credential=" + SENTINEL_KEY + "/20261202/us-east-1/s3/aws4_request"));
        assertEquals(Injection.Outcome.UNCHANGED, elsewhere.outcome(), "the injector's checks refuse a sentinel headed elsewhere");
    }

    /** How the step re-signs the body's chunks, or {@code null}. */
    private static ChunkResigner.Plan resigning(Injection injection) {
        return injection.use().body() instanceof ChunkResigner.Plan plan ? plan : null;
    }
}
