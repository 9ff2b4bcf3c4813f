package org.cyverse.mesa.egress.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache.ProxyConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Temporary credentials ({@code aws_sigv4.session_token}): the proxy holds an STS-style key id,
 * secret key and session token, read together from one Kubernetes-style secret file; the agent's
 * AWS SDK signs with the sentinel pair and no token, as always. The server ({@link S3SessionServer})
 * checks the signature with the session's secret key and refuses a request without the session's
 * token. When the file is rewritten with a new session, the proxy moves to it and the old one can
 * be revoked.
 */
class S3TemporaryCredentialsTest {

    static final String SENTINEL_KEY = "SNTLMESAEGRESS000002";
    static final String SENTINEL_SECRET = "mesa-egress-sentinel-secret-key-0002";
    static final S3SessionServer.Session FIRST = new S3SessionServer.Session("ASIAMESAFIRSTSESSION",
            "firstTemporarySecretKey/0123456789abcdefgh", "IQoJb3JpZ2luX2VjFIRST//session+token/0123456789abcdefghijklmnop==");
    static final S3SessionServer.Session SECOND = new S3SessionServer.Session("ASIAMESASECONDSESSIO",
            "secondTemporarySecretKey/0123456789abcdefg", "IQoJb3JpZ2luX2VjSECOND//session+token/0123456789abcdefghijklmno==");

    @TempDir
    static Path dir;
    static TestPki pki;
    static S3SessionServer s3;
    static ProxyFixture proxy;
    static Path secrets;

    @BeforeAll
    static void start() throws Exception {
        pki = new TestPki("s3-sts");
        s3 = new S3SessionServer(pki.serverContext("localhost", "127.0.0.1"), Files.createDirectories(dir.resolve("store")));
        s3.issue(FIRST);
        Path upstreamCa = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        secrets = dir.resolve("osn-session.yaml");
        write(secrets, FIRST);
        String ports = "[" + s3.httpsPort() + ", " + s3.httpPort() + "]";
        String ref = "\"file:" + secrets + "#";
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + upstreamCa + "\"\n  intercept: all\n"
                + "allow:\n  - host: localhost\n    ports: " + ports + "\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: osn\n    hosts: [localhost]\n    ports: " + ports + "\n"
                + "    allow_plaintext: true\n" // only for the signed-chunk test, whose client signs chunks over plain http
                + "    aws_sigv4:\n      sentinel_access_key_id: " + SENTINEL_KEY + "\n      sentinel_secret_access_key: " + SENTINEL_SECRET
                + "\n      access_key_id: " + ref + "access_key_id\"\n      secret_access_key: " + ref + "secret_access_key\"\n"
                + "      session_token: " + ref + "session_token\"\n");
        proxy.awaitReady(Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    /** The session as one secret file, as an operator's job controller writes it (one write: replaced whole). */
    static void write(Path file, S3SessionServer.Session s) throws Exception {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, "access_key_id: " + s.accessKeyId() + "\nsecret_access_key: \"" + s.secretAccessKey()
                + "\"\nsession_token: \"" + s.sessionToken() + "\"\n");
        Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static S3Client client(String scheme, int port, AwsCredentials credentials, boolean throughProxy, RequestChecksumCalculation checksums)
            throws Exception {
        return client(scheme, port, credentials, throughProxy, checksums, new S3ThroughProxyTest.Modes());
    }

    static S3Client client(String scheme, int port, AwsCredentials credentials, boolean throughProxy, RequestChecksumCalculation checksums,
            S3ThroughProxyTest.Modes modes) throws Exception {
        ApacheHttpClient.Builder http = ApacheHttpClient.builder().tlsTrustManagersProvider(() -> S3ThroughProxyTest.trust(throughProxy
                ? proxy.server().ca().certificate() : pki.ca()));
        if (throughProxy) {
            http.proxyConfiguration(ProxyConfiguration.builder().endpoint(URI.create("http://127.0.0.1:" + proxy.port()))
                    .useSystemPropertyValues(false).useEnvironmentVariableValues(false).build());
        }
        return S3Client.builder().region(Region.US_EAST_1).endpointOverride(URI.create(scheme + "://localhost:" + port))
                .forcePathStyle(true).requestChecksumCalculation(checksums)
                .credentialsProvider(StaticCredentialsProvider.create(credentials)).httpClient(http.build())
                .overrideConfiguration(o -> o.addExecutionInterceptor(modes)).build();
    }

    static S3Client agent() throws Exception {
        return agent(new S3ThroughProxyTest.Modes());
    }

    static S3Client agent(S3ThroughProxyTest.Modes modes) throws Exception {
        return client("https", s3.httpsPort(), AwsBasicCredentials.create(SENTINEL_KEY, SENTINEL_SECRET), true,
                RequestChecksumCalculation.WHEN_SUPPORTED, modes);
    }

    static S3Client direct(AwsCredentials credentials) throws Exception {
        return client("https", s3.httpsPort(), credentials, false, RequestChecksumCalculation.WHEN_SUPPORTED);
    }

    @Test
    void theServerWantsTheSessionsKeySecretAndTokenTogether() throws Exception {
        try (S3Client s = direct(AwsSessionCredentials.create(FIRST.accessKeyId(), FIRST.secretAccessKey(), FIRST.sessionToken()))) {
            s.createBucket(b -> b.bucket("server-check"));
        }
        S3Exception noToken = assertThrows(S3Exception.class, () -> {
            try (S3Client s = direct(AwsBasicCredentials.create(FIRST.accessKeyId(), FIRST.secretAccessKey()))) {
                s.listObjectsV2(b -> b.bucket("server-check"));
            }
        });
        assertEquals("InvalidToken", noToken.awsErrorDetails().errorCode(), "without the proxy's token the request would fail");
        S3Exception wrongToken = assertThrows(S3Exception.class, () -> {
            try (S3Client s = direct(AwsSessionCredentials.create(FIRST.accessKeyId(), FIRST.secretAccessKey(), SECOND.sessionToken()))) {
                s.listObjectsV2(b -> b.bucket("server-check"));
            }
        });
        assertEquals("InvalidToken", wrongToken.awsErrorDetails().errorCode());
        S3Exception wrongSecret = assertThrows(S3Exception.class, () -> {
            try (S3Client s = direct(AwsSessionCredentials.create(FIRST.accessKeyId(), SENTINEL_SECRET, FIRST.sessionToken()))) {
                s.listObjectsV2(b -> b.bucket("server-check"));
            }
        });
        assertEquals(403, wrongSecret.statusCode(), "S3Proxy checks the signature with the session's secret key");
        S3Exception sentinel = assertThrows(S3Exception.class, () -> {
            try (S3Client s = direct(AwsBasicCredentials.create(SENTINEL_KEY, SENTINEL_SECRET))) {
                s.listObjectsV2(b -> b.bucket("server-check"));
            }
        });
        assertEquals(403, sentinel.statusCode(), "the sentinel pair is refused without the proxy");
    }

    @Test
    void theAwsSdkWorksWithTheSentinelPairWhileTheProxyHoldsTemporaryCredentials() throws Exception {
        byte[] object = new byte[3 << 20];
        new Random(15).nextBytes(object);
        int before = s3.admitted.size();
        S3ThroughProxyTest.Modes modes = new S3ThroughProxyTest.Modes();
        try (S3Client s = agent(modes)) {
            s.createBucket(b -> b.bucket("sts-round-trip"));
            s.putObject(b -> b.bucket("sts-round-trip").key("small.txt"), RequestBody.fromString("hello with a session token"));
            s.putObject(b -> b.bucket("sts-round-trip").key("big.bin"), RequestBody.fromBytes(object));
            assertEquals("hello with a session token", s.getObjectAsBytes(b -> b.bucket("sts-round-trip").key("small.txt")).asUtf8String());
            assertArrayEquals(object, s.getObjectAsBytes(b -> b.bucket("sts-round-trip").key("big.bin")).asByteArray());
            assertEquals(List.of("big.bin", "small.txt"), s.listObjectsV2(b -> b.bucket("sts-round-trip")).contents().stream()
                    .map(o -> o.key()).toList());
            s.deleteObject(b -> b.bucket("sts-round-trip").key("small.txt"));
        }
        assertTrue(modes.seen.contains("PutObject STREAMING-UNSIGNED-PAYLOAD-TRAILER") && modes.seen.contains("GetObject UNSIGNED-PAYLOAD"),
                modes.seen.toString());
        List<String> seen = s3.admitted.subList(before, s3.admitted.size());
        assertTrue(seen.size() >= 7 && seen.stream().allMatch(k -> k.equals(FIRST.accessKeyId()) || k.equals(SECOND.accessKeyId())),
                seen.toString());
        assertFalse(proxy.auditText().contains(FIRST.sessionToken()), "the token never reaches the audit log");
        assertFalse(proxy.auditText().contains(FIRST.secretAccessKey()));
    }

    @Test
    void aUrlPresignedWithTheSentinelCarriesTheRealTokenUpstream() throws Exception {
        try (S3Client s = agent()) {
            s.createBucket(b -> b.bucket("sts-presigned"));
            s.putObject(b -> b.bucket("sts-presigned").key("k"), RequestBody.fromString("presigned with a session"));
        }
        try (S3Presigner presigner = S3ThroughProxyTest.sentinelPresigner(s3.httpsPort(), SENTINEL_KEY, SENTINEL_SECRET)) {
            URI url = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(10))
                    .getObjectRequest(g -> g.bucket("sts-presigned").key("k"))).url().toURI();
            assertFalse(url.getRawQuery().contains("X-Amz-Security-Token"), "the agent has no token to presign with");
            HttpResponse<String> got = proxy.interceptingClient().send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, got.statusCode(), got.body());
            assertEquals("presigned with a session", got.body());
        }
    }

    @Test
    void chunksSignedOverPlainHttpChainFromASeedThatSignsTheToken() throws Exception {
        byte[] object = new byte[2 << 20];
        new Random(16).nextBytes(object);
        S3ThroughProxyTest.Modes modes = new S3ThroughProxyTest.Modes();
        try (S3Client s = client("http", s3.httpPort(), AwsBasicCredentials.create(SENTINEL_KEY, SENTINEL_SECRET), true,
                RequestChecksumCalculation.WHEN_REQUIRED, modes)) {
            s.createBucket(b -> b.bucket("sts-chunks"));
            s.putObject(b -> b.bucket("sts-chunks").key("chunked.bin"), RequestBody.fromBytes(object));
            assertArrayEquals(object, s.getObjectAsBytes(b -> b.bucket("sts-chunks").key("chunked.bin")).asByteArray());
        }
        assertTrue(modes.seen.contains("PutObject STREAMING-AWS4-HMAC-SHA256-PAYLOAD"), modes.seen.toString());
    }

    @Test
    void aNewSessionInTheSecretFileIsUsedAndTheOldOneCanBeRevoked() throws Exception {
        try (S3Client s = agent()) {
            s.createBucket(b -> b.bucket("sts-rotation"));
            s3.issue(SECOND);
            write(secrets, SECOND);
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (!s3.admitted.get(s3.admitted.size() - 1).equals(SECOND.accessKeyId())) {
                assertTrue(System.nanoTime() < deadline, "the proxy did not move to the new session within 15 s");
                Thread.sleep(100);
                s.headBucket(b -> b.bucket("sts-rotation"));
            }
            s3.revoke(FIRST);
            s.putObject(b -> b.bucket("sts-rotation").key("after"), RequestBody.fromString("signed with the second session"));
            assertEquals("signed with the second session", s.getObjectAsBytes(b -> b.bucket("sts-rotation").key("after")).asUtf8String());
        } finally {
            s3.issue(FIRST);
        }
        assertFalse(proxy.auditText().contains(SECOND.sessionToken()));
    }
}
