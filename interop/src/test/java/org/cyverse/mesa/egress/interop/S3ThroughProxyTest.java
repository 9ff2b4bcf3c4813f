package org.cyverse.mesa.egress.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.cyverse.mesa.egress.testkit.MemoryWatch;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache.ProxyConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Real S3 clients through the real proxy (intercepted) to a real S3-compatible server that checks
 * signatures with the real key ({@link S3Server}): the clients sign with the sandbox's sentinel
 * pair and never see the real one; the server accepts only what the proxy re-signed. Each test
 * records the payload mode ({@code x-amz-content-sha256}) its client sent.
 */
class S3ThroughProxyTest {

    static final String SENTINEL_KEY = "SNTLMESAEGRESS000001";
    static final String SENTINEL_SECRET = "mesa-egress-sentinel-secret-key-0001";

    @TempDir
    static Path dir;
    static TestPki pki;
    static S3Server s3;
    static ProxyFixture proxy;
    static Path proxyCa;

    @BeforeAll
    static void start() throws Exception {
        pki = new TestPki("s3");
        s3 = new S3Server(pki.serverContext("localhost", "127.0.0.1"), Files.createDirectories(dir.resolve("store")));
        Path upstreamCa = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Path secrets = dir.resolve("osn.yaml");
        Files.writeString(secrets, "secret_key: \"" + S3Server.SECRET_ACCESS_KEY + "\"\n");
        String ports = "[" + s3.httpsPort() + ", " + s3.httpPort() + "]";
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + upstreamCa + "\"\n  intercept: all\n"
                + "allow:\n  - host: localhost\n    ports: " + ports + "\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: osn\n    hosts: [localhost]\n    ports: " + ports + "\n"
                // Only for the signed-chunk test, whose client signs chunks over plain http (as SDKs do there).
                + "    allow_plaintext: true\n"
                + "    aws_sigv4:\n      sentinel_access_key_id: " + SENTINEL_KEY + "\n      sentinel_secret_access_key: " + SENTINEL_SECRET
                + "\n      access_key_id: " + S3Server.ACCESS_KEY_ID + "\n      secret_access_key: \"file:" + secrets + "#secret_key\"\n");
        proxy.awaitReady(Duration.ofSeconds(10));
        proxyCa = dir.resolve("proxy-ca.pem");
        Files.writeString(proxyCa, pem(proxy.server().ca().certificate()));
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

    /** Every x-amz-content-sha256 a client sent, as "Operation MODE". */
    static final class Modes implements ExecutionInterceptor {
        final List<String> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            seen.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME) + " "
                    + context.httpRequest().firstMatchingHeader("x-amz-content-sha256").orElse("(none)"));
        }
    }

    static S3Client client(String scheme, int port, String secret, Modes modes, boolean throughProxy,
            RequestChecksumCalculation checksums) throws Exception {
        ApacheHttpClient.Builder http = ApacheHttpClient.builder().tlsTrustManagersProvider(() -> trust(throughProxy
                ? proxy.server().ca().certificate() : pki.ca()));
        if (throughProxy) {
            http.proxyConfiguration(ProxyConfiguration.builder().endpoint(URI.create("http://127.0.0.1:" + proxy.port()))
                    .useSystemPropertyValues(false).useEnvironmentVariableValues(false).build());
        }
        return S3Client.builder().region(Region.US_EAST_1).endpointOverride(URI.create(scheme + "://localhost:" + port))
                .forcePathStyle(true).requestChecksumCalculation(checksums)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(SENTINEL_KEY, secret)))
                .httpClient(http.build()).overrideConfiguration(o -> o.addExecutionInterceptor(modes)).build();
    }

    static S3Client agent(Modes modes) throws Exception {
        return client("https", s3.httpsPort(), SENTINEL_SECRET, modes, true, RequestChecksumCalculation.WHEN_SUPPORTED);
    }

    @Test
    void theAwsSdkPutsGetsListsAndDeletesWithTheSentinelPair() throws Exception {
        Modes modes = new Modes();
        String key = "dir/a b+c~d=é.txt";
        try (S3Client s = agent(modes)) {
            s.createBucket(b -> b.bucket("round-trip"));
            s.putObject(b -> b.bucket("round-trip").key(key), RequestBody.fromString("hello through the proxy"));
            assertEquals("hello through the proxy", s.getObjectAsBytes(b -> b.bucket("round-trip").key(key)).asUtf8String());
            // A ranged read keeps its range: SigV4 puts no secret on the request (WholeAnswers), the answer is the object.
            assertEquals("through", s.getObjectAsBytes(b -> b.bucket("round-trip").key(key).range("bytes=6-12")).asUtf8String());
            assertEquals(List.of(key), s.listObjectsV2(b -> b.bucket("round-trip")).contents().stream().map(o -> o.key()).toList());
            s.deleteObject(b -> b.bucket("round-trip").key(key));
            assertEquals(0, s.listObjectsV2(b -> b.bucket("round-trip")).keyCount());
        }
        System.out.println("AWS SDK for Java v2 through the proxy: " + modes.seen);
        assertTrue(modes.seen.contains("PutObject STREAMING-UNSIGNED-PAYLOAD-TRAILER"), modes.seen::toString);
        assertTrue(modes.seen.contains("GetObject UNSIGNED-PAYLOAD"), modes.seen::toString);
        JsonNode put = proxy.awaitAuditRecord(r -> "PUT".equals(r.path("method").asText()) && r.path("path").asText().startsWith("/round-trip/"));
        assertEquals("osn", put.path("credential").asText());
        assertEquals(200, put.path("status").asInt());
        assertFalse(proxy.auditText().contains(S3Server.SECRET_ACCESS_KEY));
    }

    @Test
    void theServerRefusesTheSentinelPairWithoutTheProxy() throws Exception {
        try (S3Client direct = client("https", s3.httpsPort(), SENTINEL_SECRET, new Modes(), false, RequestChecksumCalculation.WHEN_SUPPORTED)) {
            S3Exception refused = assertThrows(S3Exception.class, () -> direct.listBuckets());
            assertEquals(403, refused.statusCode(), refused.getMessage());
        }
        try (S3Client real = S3Client.builder().region(Region.US_EAST_1).endpointOverride(URI.create("https://localhost:" + s3.httpsPort()))
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Server.ACCESS_KEY_ID,
                        S3Server.SECRET_ACCESS_KEY))).httpClient(ApacheHttpClient.builder().tlsTrustManagersProvider(() -> trust(pki.ca()))
                        .build()).build()) {
            real.listBuckets(); // the real pair works: the refusal above was the signature's
        }
    }

    @Test
    void aFiftyMibMultipartUploadComesBackWhole() throws Exception {
        Modes modes = new Modes();
        byte[] part = new byte[5 << 20];
        MessageDigest sent = MessageDigest.getInstance("SHA-256");
        Random random = new Random(15);
        try (S3Client s = agent(modes)) {
            s.createBucket(b -> b.bucket("multipart"));
            String upload = s.createMultipartUpload(b -> b.bucket("multipart").key("fifty")).uploadId();
            List<CompletedPart> parts = new ArrayList<>();
            for (int n = 1; n <= 10; n++) {
                random.nextBytes(part);
                sent.update(part);
                int number = n;
                String etag = s.uploadPart(b -> b.bucket("multipart").key("fifty").uploadId(upload).partNumber(number),
                        RequestBody.fromBytes(part)).eTag();
                parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
            }
            s.completeMultipartUpload(b -> b.bucket("multipart").key("fifty").uploadId(upload).multipartUpload(m -> m.parts(parts)));
            byte[] back = s.getObjectAsBytes(b -> b.bucket("multipart").key("fifty")).asByteArray();
            assertEquals(50 << 20, back.length);
            assertArrayEquals(sent.digest(), MessageDigest.getInstance("SHA-256").digest(back));
        }
        System.out.println("AWS SDK for Java v2 multipart through the proxy: " + modes.seen.stream().distinct().toList());
    }

    /** {@code length} bytes of a repeated random block, made as they are read: the client holds none of the object. */
    static InputStream generated(long length) {
        byte[] block = new byte[64 << 10];
        new Random(1).nextBytes(block);
        return new InputStream() {
            long left = length;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left == 0) {
                    return -1;
                }
                int n = (int) Math.min(Math.min(len, left), block.length - (int) ((length - left) % block.length));
                System.arraycopy(block, (int) ((length - left) % block.length), b, off, n);
                left -= n;
                return n;
            }
        };
    }

    /**
     * One GiB streamed through the proxy, over https (checksum trailer) and over plain http (every
     * chunk re-signed). The interop JVM runs with -Xmx512m (its pom): the proxy, the client and
     * S3Proxy together; the object held anywhere would not fit. The proxy's Netty buffers stay small.
     */
    @Test
    void aOneGibUploadStreamsThroughInBoundedMemory() throws Exception {
        long gib = 1L << 30;
        Modes modes = new Modes();
        try (MemoryWatch memory = new MemoryWatch();
                S3Client https = agent(modes);
                S3Client http = client("http", s3.httpPort(), SENTINEL_SECRET, modes, true, RequestChecksumCalculation.WHEN_REQUIRED)) {
            https.createBucket(b -> b.bucket("large"));
            https.putObject(b -> b.bucket("large").key("over-https"), RequestBody.fromInputStream(generated(gib), gib));
            http.putObject(b -> b.bucket("large").key("over-http"), RequestBody.fromInputStream(generated(gib), gib));
            assertEquals(gib, https.headObject(b -> b.bucket("large").key("over-https")).contentLength());
            assertEquals(gib, https.headObject(b -> b.bucket("large").key("over-http")).contentLength());
            System.out.println("1 GiB uploads: " + modes.seen + "; the proxy's Netty buffers peaked at " + memory.peak() / 1024 + " KiB");
            assertTrue(memory.peak() < 64L << 20, "the proxy's buffers peaked at " + memory.peak() + " bytes");
        }
        assertTrue(modes.seen.contains("PutObject STREAMING-UNSIGNED-PAYLOAD-TRAILER"), modes.seen::toString);
        assertTrue(modes.seen.contains("PutObject STREAMING-AWS4-HMAC-SHA256-PAYLOAD"), modes.seen::toString);
    }

    /** The agent's presigner: a sentinel pair, path style, the S3 server's HTTPS port. */
    static S3Presigner sentinelPresigner(int httpsPort, String sentinelKey, String sentinelSecret) {
        return S3Presigner.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create("https://localhost:" + httpsPort))
                .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(sentinelKey, sentinelSecret))).build();
    }

    @Test
    void aUrlPresignedWithTheSentinelIsFetchedThroughTheProxy() throws Exception {
        try (S3Client s = agent(new Modes())) {
            s.createBucket(b -> b.bucket("presigned"));
            s.putObject(b -> b.bucket("presigned").key("k"), RequestBody.fromString("presigned body"));
        }
        try (S3Presigner presigner = sentinelPresigner(s3.httpsPort(), SENTINEL_KEY, SENTINEL_SECRET)) {
            URI url = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(10))
                    .getObjectRequest(g -> g.bucket("presigned").key("k"))).url().toURI();
            assertTrue(url.getRawQuery().contains("X-Amz-Credential=" + SENTINEL_KEY), url.toString());
            HttpResponse<String> got = proxy.interceptingClient().send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, got.statusCode(), got.body());
            assertEquals("presigned body", got.body());
        }
    }

    @Test
    void chunksTheSdkSignsOverPlainHttpAreReSignedAsTheyStream() throws Exception {
        Modes modes = new Modes();
        byte[] object = new byte[(3 << 20) + 12345];
        new Random(7).nextBytes(object);
        try (S3Client s = client("http", s3.httpPort(), SENTINEL_SECRET, modes, true, RequestChecksumCalculation.WHEN_REQUIRED)) {
            s.createBucket(b -> b.bucket("chunks"));
            s.putObject(b -> b.bucket("chunks").key("signed"), RequestBody.fromBytes(object));
            assertArrayEquals(object, s.getObjectAsBytes(b -> b.bucket("chunks").key("signed")).asByteArray());
        }
        // With the default checksums, the chunks end in a signed checksum trailer.
        try (S3Client s = client("http", s3.httpPort(), SENTINEL_SECRET, modes, true, RequestChecksumCalculation.WHEN_SUPPORTED)) {
            s.putObject(b -> b.bucket("chunks").key("signed-trailer"), RequestBody.fromBytes(object));
            assertArrayEquals(object, s.getObjectAsBytes(b -> b.bucket("chunks").key("signed-trailer")).asByteArray());
        }
        System.out.println("AWS SDK for Java v2 over plain http through the proxy: " + modes.seen);
        assertTrue(modes.seen.contains("PutObject STREAMING-AWS4-HMAC-SHA256-PAYLOAD"), modes.seen::toString);
        assertTrue(modes.seen.contains("PutObject STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"), modes.seen::toString);
    }

    /** Signed chunks as the AWS SDK's signer writes them with the real key, one chunk signature changed when {@code corrupt}. */
    static int signedChunksStraightToTheServer(String key, boolean corrupt) throws Exception {
        byte[] object = new byte[200_000];
        new Random(3).nextBytes(object);
        URI uri = URI.create("http://localhost:" + s3.httpPort() + "/chunks-direct/" + key);
        software.amazon.awssdk.http.SdkHttpRequest request = software.amazon.awssdk.http.SdkHttpRequest.builder()
                .method(software.amazon.awssdk.http.SdkHttpMethod.PUT).uri(uri).putHeader("Host", "localhost:" + s3.httpPort())
                .putHeader("Content-Length", Integer.toString(object.length)).build();
        var signed = software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.create().sign(r -> r.request(request)
                .identity(software.amazon.awssdk.identity.spi.AwsCredentialsIdentity.create(S3Server.ACCESS_KEY_ID, S3Server.SECRET_ACCESS_KEY))
                .payload(() -> new java.io.ByteArrayInputStream(object))
                .putProperty(software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, true)
                .putProperty(software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, true));
        byte[] body = signed.payload().orElseThrow().newStream().readAllBytes();
        if (corrupt) {
            String text = new String(body, StandardCharsets.ISO_8859_1);
            int at = text.indexOf(";chunk-signature=", 100) + ";chunk-signature=".length(); // the second chunk's
            body[at] = (byte) (body[at] == '0' ? '1' : '0');
        }
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", s3.httpPort())) {
            StringBuilder head = new StringBuilder("PUT " + uri.getRawPath() + " HTTP/1.1\r\n");
            signed.request().forEachHeader((name, values) -> values.forEach(v -> head.append(name).append(": ").append(v).append("\r\n")));
            head.append("Connection: close\r\n\r\n");
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(body);
            String status = new String(socket.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1);
            return Integer.parseInt(status.substring(9, 12));
        }
    }

    @Test
    void theServerChecksEveryChunkSignature() throws Exception {
        try (S3Client s = client("http", s3.httpPort(), SENTINEL_SECRET, new Modes(), true, RequestChecksumCalculation.WHEN_REQUIRED)) {
            s.createBucket(b -> b.bucket("chunks-direct"));
        }
        assertEquals(200, signedChunksStraightToTheServer("good", false));
        assertEquals(403, signedChunksStraightToTheServer("bad", true),
                "a chunk whose signature is not the chain's is refused: the proxy must re-sign each one");
    }

    @Test
    void aWrongSentinelSecretIsRefusedByTheProxyNotSigned() throws Exception {
        try (S3Client s = client("https", s3.httpsPort(), "not-the-sentinel-secret-key-000000", new Modes(), true,
                RequestChecksumCalculation.WHEN_SUPPORTED)) {
            S3Exception refused = assertThrows(S3Exception.class, () -> s.listObjectsV2(b -> b.bucket("wrong-secret")));
            assertEquals(403, refused.statusCode());
        }
        JsonNode audit = proxy.awaitAuditRecord(r -> "/wrong-secret".equals(r.path("path").asText()));
        assertEquals("sigv4_signature_mismatch", audit.path("reason").asText());
        assertEquals("osn", audit.path("credential").asText());
    }

    @Test
    void boto3PutsGetsListsAndDeletesWithTheSentinelPair() throws Exception {
        List<String> pythons = boto3Pythons();
        assertFalse(pythons.isEmpty(), "no python3 with boto3: install python3-boto3 (bin/test does, as root)");
        for (String python : pythons) {
            boto3(python);
        }
    }

    private static void boto3(String python) throws Exception {
        String script = String.join("\n",
                "import os, boto3",
                "from botocore.config import Config",
                "modes = []",
                "s = boto3.client('s3', endpoint_url=os.environ['ENDPOINT'], region_name='us-east-1',",
                "    config=Config(s3={'addressing_style': 'path'}, proxies={'https': os.environ['HTTPS_PROXY']}))",
                "s.meta.events.register('before-send.s3.*', lambda request, **kw: modes.append(",
                "    kw['event_name'].split('.')[-1] + ' ' + request.headers.get('x-amz-content-sha256', b'(none)').decode()",
                "    if isinstance(request.headers.get('x-amz-content-sha256'), bytes) else",
                "    kw['event_name'].split('.')[-1] + ' ' + str(request.headers.get('x-amz-content-sha256'))))",
                "bucket = 'boto-' + boto3.__version__.replace('.', '-')",
                "s.create_bucket(Bucket=bucket)",
                "s.put_object(Bucket=bucket, Key='dir/from boto3.txt', Body=b'hello from boto3')",
                "assert s.get_object(Bucket=bucket, Key='dir/from boto3.txt')['Body'].read() == b'hello from boto3'",
                "assert [o['Key'] for o in s.list_objects_v2(Bucket=bucket)['Contents']] == ['dir/from boto3.txt']",
                "s.delete_object(Bucket=bucket, Key='dir/from boto3.txt')",
                "print('boto3', boto3.__version__, modes)");
        ProcessBuilder builder = new ProcessBuilder(python, "-c", script).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy") || k.startsWith("AWS_"));
        builder.environment().put("HTTPS_PROXY", "http://127.0.0.1:" + proxy.port());
        builder.environment().put("AWS_CA_BUNDLE", proxyCa.toString());
        builder.environment().put("AWS_ACCESS_KEY_ID", SENTINEL_KEY);
        builder.environment().put("AWS_SECRET_ACCESS_KEY", SENTINEL_SECRET);
        builder.environment().put("ENDPOINT", "https://localhost:" + s3.httpsPort());
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        System.out.println(out);
        assertEquals(0, process.exitValue(), out);
        assertTrue(out.contains("PutObject"), out);
    }

    @Test
    void theAwsCliCopiesUpAndDownWithTheSentinelPair() throws Exception {
        List<String> clis = new ArrayList<>();
        for (String candidate : List.of("aws", "/usr/bin/aws")) {
            try {
                Process p = new ProcessBuilder(candidate, "--version").redirectErrorStream(true).start();
                String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 && clis.stream().noneMatch(c -> c.endsWith(version))) {
                    clis.add(candidate + " " + version);
                }
            } catch (java.io.IOException e) {
                // not installed: try the next
            }
        }
        assertFalse(clis.isEmpty(), "no aws CLI: install awscli (bin/test does, as root)");
        Path config = dir.resolve("aws-config");
        Files.writeString(config, "[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n");
        Path file = dir.resolve("upload.txt");
        Files.writeString(file, "hello from the aws CLI\n".repeat(1000));
        try (S3Client s = agent(new Modes())) {
            s.createBucket(b -> b.bucket("cli"));
        }
        for (String cli : clis) {
            String aws = cli.substring(0, cli.indexOf(' '));
            String key = "from-cli-" + clis.indexOf(cli);
            Path back = dir.resolve(key + ".back");
            run(config, aws, "s3", "cp", file.toString(), "s3://cli/" + key);
            run(config, aws, "s3", "cp", "s3://cli/" + key, back.toString());
            assertEquals(Files.readString(file), Files.readString(back), cli);
            assertTrue(run(config, aws, "s3", "ls", "s3://cli/").contains(key), cli);
            run(config, aws, "s3", "rm", "s3://cli/" + key);
            System.out.println("through the proxy: " + cli);
        }
    }

    /** The aws CLI as an agent runs it: the sentinel pair, HTTPS_PROXY at the proxy, the proxy's CA as AWS_CA_BUNDLE. */
    private static String run(Path config, String aws, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(aws));
        command.addAll(List.of(args));
        command.addAll(List.of("--endpoint-url", "https://localhost:" + s3.httpsPort()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy") || k.startsWith("AWS_"));
        builder.environment().put("HTTPS_PROXY", "http://127.0.0.1:" + proxy.port());
        builder.environment().put("AWS_CA_BUNDLE", proxyCa.toString());
        builder.environment().put("AWS_CONFIG_FILE", config.toString());
        builder.environment().put("AWS_SHARED_CREDENTIALS_FILE", dir.resolve("no-credentials").toString());
        builder.environment().put("AWS_ACCESS_KEY_ID", SENTINEL_KEY);
        builder.environment().put("AWS_SECRET_ACCESS_KEY", SENTINEL_SECRET);
        builder.environment().put("AWS_EC2_METADATA_DISABLED", "true");
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), String.join(" ", args) + ": " + out);
        return out;
    }

    /** Every Python here with boto3: the one on PATH, and Debian's (bin/test installs python3-boto3 when neither has it). */
    static List<String> boto3Pythons() throws Exception {
        List<String> found = new ArrayList<>();
        for (String candidate : List.of("python3", "/usr/bin/python3")) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import boto3, sys; print(sys.executable)").redirectErrorStream(true).start();
                String executable = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && !found.contains(executable)) {
                    found.add(executable);
                }
            } catch (java.io.IOException e) {
                // not installed: try the next
            }
        }
        return found;
    }

    static TrustManager[] trust(X509Certificate ca) {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setCertificateEntry("ca", ca);
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory.getTrustManagers();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String pem(X509Certificate certificate) throws Exception {
        return "-----BEGIN CERTIFICATE-----\n" + java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(certificate.getEncoded()) + "\n-----END CERTIFICATE-----\n";
    }
}
