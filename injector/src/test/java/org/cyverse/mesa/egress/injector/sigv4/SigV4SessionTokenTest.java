package org.cyverse.mesa.egress.injector.sigv4;

import static org.cyverse.mesa.egress.injector.sigv4.SigV4StepTest.SUITE_KEY;
import static org.cyverse.mesa.egress.injector.sigv4.SigV4StepTest.SUITE_SECRET;
import static org.cyverse.mesa.egress.injector.sigv4.SigV4StepTest.SUITE_TIME;
import static org.cyverse.mesa.egress.injector.sigv4.SigV4StepTest.header;
import static org.cyverse.mesa.egress.injector.sigv4.SigV4StepTest.request;
import static org.cyverse.mesa.egress.injector.sigv4.SigV4StepTest.suiteAuth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
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
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStore;
import org.cyverse.mesa.egress.injector.EnvSecretSource;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.Injector;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.PercentText;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.CredentialLimits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * Temporary credentials (SPEC.md {@code aws_sigv4.session_token}): the key id, secret key and
 * session token are fetched together, and a request the agent signed with the sentinel pair goes
 * out with the real session token added and signed, as AWS signs one (the suite's
 * post-sts-header-before vector; the AWS SDK's own signer with session credentials).
 */
class SigV4SessionTokenTest {

    /** The session token of AWS's test suite (post-sts-token). */
    static final String SUITE_TOKEN = "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIe"
            + "oIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8Y"
            + "QcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";
    static final String SENTINEL_KEY = "SNTLSENTINELOSN00001";
    static final String SENTINEL_SECRET = "sentinelSecretAccessKey/0123456789abcdef";
    static final String TEMP_KEY = "ASIATEMPORARYKEY0001";
    static final String TEMP_SECRET = "temporarySecretAccessKey/0123456789abcdefgh";
    static final String TEMP_TOKEN = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+temporary/session=token";

    private static ScheduledExecutorService executor;
    private static CredentialStore store;
    private static List<CredentialSpec> specs;

    @BeforeAll
    static void values() {
        executor = Executors.newSingleThreadScheduledExecutor();
        specs = List.of(
                // The suite's pair as both sentinel and real key, with the suite's token: the output must be AWS's own.
                spec("suite", "example.amazonaws.com", new SigV4Keys(SUITE_KEY, SUITE_SECRET, SUITE_KEY, null, ref("SUITE_TOKEN"))),
                spec("osn", "osn.example.org", new SigV4Keys(SENTINEL_KEY, SENTINEL_SECRET, null, ref("OSN_KEY_ID"), ref("OSN_TOKEN"))),
                spec("broken", "broken.example.org", new SigV4Keys("SNTLSENTINELBAD00001", SENTINEL_SECRET, null, ref("BROKEN_KEY_ID"),
                        ref("OSN_TOKEN"))));
        Map<String, String> env = Map.of("SUITE", SUITE_SECRET, "SUITE_TOKEN", SUITE_TOKEN, "OSN", TEMP_SECRET, "OSN_KEY_ID", TEMP_KEY,
                "OSN_TOKEN", TEMP_TOKEN, "BROKEN", TEMP_SECRET, "BROKEN_KEY_ID", "not/a-key-id");
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

    static SecretRef ref(String name) {
        return SecretRef.parse("env:" + name);
    }

    static CredentialSpec spec(String name, String host, SigV4Keys keys) {
        return new CredentialSpec(name, List.of(HostPattern.parse(host)), Set.of(443), Set.of(), List.of(), keys.sentinelAccessKeyId(),
                null, "Bearer {secret}", ref(name.toUpperCase()), false, false, keys, CredentialLimits.NONE);
    }

    static SigV4Step step(Instant now) {
        return new SigV4Step(specs, store, Clock.fixed(now, ZoneOffset.UTC));
    }

    /** {@code GET https://osn.example.org/bucket/k} with a Range header, as the SDK's signer signs it for {@code identity}. */
    static SdkHttpRequest sdkSigned(AwsCredentialsIdentity identity, Instant at, Duration presignedFor) {
        SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.GET).uri(URI.create("https://osn.example.org/bucket/k"))
                .putHeader("Host", "osn.example.org").putHeader("Range", "bytes=0-9").build();
        SignedRequest signed = AwsV4HttpSigner.create().sign(r -> {
            r.request(request).identity(identity)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1").putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false).putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                    .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                    .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(at, ZoneOffset.UTC));
            if (presignedFor != null) {
                r.putProperty(AwsV4HttpSigner.AUTH_LOCATION, AwsV4HttpSigner.AuthLocation.QUERY_STRING)
                        .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, presignedFor);
            }
        });
        return signed.request();
    }

    static OutgoingRequest outgoing(SdkHttpRequest signed) {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        signed.forEachHeader((name, values) -> values.forEach(v -> headers.add(Map.entry(name, v))));
        String query = signed.encodedQueryParameters().map(q -> "?" + q).orElse("");
        return new OutgoingRequest(true, SigV4StepTest.dest("osn.example.org"), signed.method().name(), signed.encodedPath() + query,
                headers);
    }

    static List<String> all(Injection out, String name) {
        return out.headers().stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).toList();
    }

    static String queryParam(String pathAndQuery, String name) {
        for (String p : pathAndQuery.substring(pathAndQuery.indexOf('?') + 1).split("&")) {
            if (p.startsWith(name + "=")) {
                return PercentText.decode(p.substring(name.length() + 1));
            }
        }
        return null;
    }

    @Test
    void theSessionTokenIsAddedAndSignedExactlyAsAwsSignsPostStsHeaderBefore() {
        // post-vanilla as the agent signs it (no token), re-signed with the suite's pair and the suite's token.
        Injection out = step(SUITE_TIME).apply(request("POST", "example.amazonaws.com", "/", "Host:example.amazonaws.com",
                "X-Amz-Date:20150830T123600Z", suiteAuth("host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b")));
        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals(List.of(SUITE_TOKEN), all(out, "X-Amz-Security-Token"));
        assertEquals(suiteAuth("host;x-amz-date;x-amz-security-token", "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead")
                .substring("Authorization:".length()), header(out, "Authorization"), "AWS's post-sts-header-before signature");
    }

    @Test
    void aRequestSignedWithTheSentinelGoesOutAsTheSdkSignsItWithTheTemporaryCredentials() {
        Instant now = Instant.parse("2026-12-03T09:00:00Z");
        OutgoingRequest agent = outgoing(sdkSigned(AwsCredentialsIdentity.create(SENTINEL_KEY, SENTINEL_SECRET), now.minusSeconds(30), null));

        Injection out = step(now).apply(agent);

        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        SdkHttpRequest expected = sdkSigned(AwsSessionCredentialsIdentity.create(TEMP_KEY, TEMP_SECRET, TEMP_TOKEN), now, null);
        assertEquals(expected.firstMatchingHeader("Authorization").orElseThrow(), header(out, "Authorization"));
        assertTrue(header(out, "Authorization").contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date;x-amz-security-token,"),
                header(out, "Authorization"));
        assertEquals(List.of(TEMP_TOKEN), all(out, "X-Amz-Security-Token"));
        assertFalse(out.headers().toString().contains(SENTINEL_KEY), "the sentinel key id does not go upstream");
    }

    @Test
    void aSessionTokenTheAgentSentIsReplacedByTheRealOne() {
        Instant now = Instant.parse("2026-12-03T09:00:00Z");
        OutgoingRequest agent = outgoing(sdkSigned(AwsSessionCredentialsIdentity.create(SENTINEL_KEY, SENTINEL_SECRET, "sentinel-session-token"),
                now, null));

        Injection out = step(now).apply(agent);

        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals(List.of(TEMP_TOKEN), all(out, "X-Amz-Security-Token"), "one token header, the real one");
        SdkHttpRequest expected = sdkSigned(AwsSessionCredentialsIdentity.create(TEMP_KEY, TEMP_SECRET, TEMP_TOKEN), now, null);
        assertEquals(expected.firstMatchingHeader("Authorization").orElseThrow(), header(out, "Authorization"));
    }

    @Test
    void aPresignedUrlGetsTheRealSessionTokenInItsSignedQuery() {
        Instant signedAt = Instant.parse("2026-12-03T08:30:00Z");
        Instant now = signedAt.plus(Duration.ofMinutes(30));
        SdkHttpRequest presigned = sdkSigned(AwsSessionCredentialsIdentity.create(SENTINEL_KEY, SENTINEL_SECRET, "sentinel-session-token"),
                signedAt, Duration.ofHours(2));
        OutgoingRequest agent = new OutgoingRequest(true, SigV4StepTest.dest("osn.example.org"), "GET",
                presigned.encodedPath() + "?" + presigned.encodedQueryParameters().orElseThrow(),
                List.of(Map.entry("Host", "osn.example.org"), Map.entry("Range", "bytes=0-9")));

        Injection out = step(now).apply(agent);

        assertEquals(Injection.Outcome.INJECTED, out.outcome(), out.detail());
        assertEquals(TEMP_TOKEN, queryParam(out.pathAndQuery(), "X-Amz-Security-Token"));
        assertFalse(out.pathAndQuery().contains("sentinel-session-token"));
        assertFalse(out.pathAndQuery().contains(SENTINEL_KEY));
        SdkHttpRequest expected = sdkSigned(AwsSessionCredentialsIdentity.create(TEMP_KEY, TEMP_SECRET, TEMP_TOKEN), now,
                Duration.ofSeconds(5400));
        assertEquals(queryParam("?" + expected.encodedQueryParameters().orElseThrow(), "X-Amz-Signature"),
                queryParam(out.pathAndQuery(), "X-Amz-Signature"), "the SDK's presigned signature for the rest of the URL's lifetime");
    }

    @Test
    void aFetchedKeyIdThatIsNotOneMakesTheCredentialUnavailableWithoutShowingIt() {
        Instant now = Instant.parse("2026-12-03T09:00:00Z");
        OutgoingRequest signed = outgoing(sdkSigned(AwsCredentialsIdentity.create("SNTLSENTINELBAD00001", SENTINEL_SECRET), now, null));
        OutgoingRequest agent = new OutgoingRequest(true, SigV4StepTest.dest("broken.example.org"), "GET", signed.pathAndQuery(),
                signed.headers().stream().map(h -> h.getKey().equalsIgnoreCase("host") ? Map.entry(h.getKey(), "broken.example.org") : h)
                        .toList());

        Injection out = step(now).apply(agent);

        assertEquals(Injection.Outcome.UNAVAILABLE, out.outcome(), out.detail());
        assertTrue(out.detail().contains("env:BROKEN_KEY_ID") && out.detail().contains("not an access key id"), out.detail());
        assertFalse(out.detail().contains("not/a-key-id"), out.detail());
    }

    @Test
    void theTemporaryKeyIdComesBackAsTheSentinelAndTheTokenNeverReachesTheAgent() {
        Injector injector = new Injector(specs, store);
        String error = "<Error><Code>ExpiredToken</Code><AWSAccessKeyId>" + TEMP_KEY + "</AWSAccessKeyId><Token>" + TEMP_TOKEN
                + "</Token></Error>";
        String scrubbed = injector.scrub(error);
        assertTrue(scrubbed.contains("<AWSAccessKeyId>" + SENTINEL_KEY + "</AWSAccessKeyId>"), scrubbed);
        assertFalse(scrubbed.contains(TEMP_TOKEN), scrubbed);
        assertFalse(injector.redact("signed with " + TEMP_TOKEN).contains(TEMP_TOKEN), "never in a log line either");
    }

    @Test
    void theRealSessionTokenFromTheAgentIsALeakWhereverItGoes() {
        Injector injector = new Injector(specs, store);
        OutgoingRequest elsewhere = new OutgoingRequest(true, SigV4StepTest.dest("paste.example.net"), "POST", "/",
                List.of(Map.entry("Host", "paste.example.net"), Map.entry("X-Note", "token " + TEMP_TOKEN)));

        Injection out = injector.apply(elsewhere);

        assertEquals(Injection.Outcome.SECRET_LEAK, out.outcome(), out.detail());
        assertEquals("osn", out.credential());
        var scanner = injector.bodyScan(elsewhere).newScanner();
        byte[] body = ("{\"t\":\"" + TEMP_TOKEN + "\"}").getBytes(StandardCharsets.UTF_8);
        var hit = scanner.feed(body, 0, body.length);
        hit = hit != null ? hit : scanner.finish();
        assertNotNull(hit, "a body carrying the session token is caught too");
        assertEquals("osn", hit.finding().credential());
    }
}
