package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.cyverse.mesa.egress.testkit.BodyUpstream;
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.Python;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nothing leaks through a body (SPEC.md step 5 for bodies): request bodies carrying a real secret,
 * or a sentinel outside its credential's scope, are refused before any of them reaches the
 * upstream, in every spelling and coding; responses echoing the secret come back with the
 * sentinel whatever their coding, still streaming. Real clients (the JDK's, curl, Python) and
 * real upstreams on loopback, which prove what they received.
 */
class BodyScanTest {

    static final String SECRET = "sk-llm-REAL-7c1d9e2f4a6b8c0d";
    static final String SENTINEL = "sk-mesa-sentinel";

    @TempDir
    static Path dir;

    private static BodyUpstream llm;
    private static BodyUpstream other;
    private static BodyUpstream plain;
    private static ProxyFixture proxy;
    private static HttpClient client;
    private static Path proxyCa;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("upstream");
        llm = new BodyUpstream(pki.serverContext("localhost", "127.0.0.1"));
        other = new BodyUpstream(pki.serverContext("localhost", "127.0.0.1"));
        plain = new BodyUpstream(null);
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Files.writeString(dir.resolve("secrets.yaml"), "llm: \"" + SECRET + "\"\n");
        proxy = ProxyFixture.start(config(ca, ""));
        for (int i = 0; i < 100 && proxy.admin("/readyz").statusCode() != 200; i++) {
            Thread.sleep(50);
        }
        proxyCa = dir.resolve("proxy-ca.pem");
        Files.write(proxyCa, proxy.server().ca().pem());
        client = proxy.interceptingClient();
    }

    static String config(Path upstreamCa, String limits) {
        return "profile: P2\n"
                + "tls:\n  upstream_ca: \"" + upstreamCa + "\"\n  intercept: all\n"
                + "allow:\n"
                + "  - host: \"localhost\"\n    ports: [" + llm.port() + "]\n"
                + "  - host: \"127.0.0.1\"\n    ports: [" + other.port() + ", " + plain.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + limits
                + "credentials:\n"
                + "  - name: llm\n    hosts: [\"localhost\"]\n    ports: [" + llm.port() + "]\n    paths: [\"/v1/**\"]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: Authorization\n"
                + "    secret: \"file:" + dir.resolve("secrets.yaml") + "#llm\"\n";
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            proxy.close();
            assertFalse(proxy.auditText().contains(SECRET), "the secret reached the audit log");
        } finally {
            llm.close();
            other.close();
            plain.close();
        }
    }

    private static String otherUrl(String path) {
        return "https://127.0.0.1:" + other.port() + path;
    }

    private static String llmUrl(String path) {
        return "https://localhost:" + llm.port() + path;
    }

    private static HttpResponse<String> post(String url, String contentType, byte[] body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertRefused(HttpResponse<String> response, String reason, BodyUpstream upstream, int before) throws Exception {
        assertEquals(403, response.statusCode(), response.body());
        assertEquals(reason, response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        assertFalse(response.body().contains(SECRET), response.body());
        assertEquals(before, upstream.seen().size(), "nothing of the request reached the upstream");
    }

    @Test
    void aRealSecretInAJsonBodyToAHostWithoutCredentialIsRefusedAndRecorded() throws Exception {
        int before = other.seen().size();
        HttpResponse<String> response = post(otherUrl("/chat"), "application/json",
                ("{\"messages\":[{\"role\":\"user\",\"content\":\"the key is " + SECRET + "\"}]}").getBytes(StandardCharsets.UTF_8));
        assertRefused(response, "secret_leak", other, before);
        assertTrue(response.body().contains("request body"), response.body());
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("secret_leak") && r.get("path").asText().equals("/chat"));
        assertEquals("llm", record.get("credential").asText());
        assertEquals("body", record.get("place").asText());
        assertEquals("deny", record.get("decision").asText());
        String metrics = proxy.admin("/metrics").body();
        assertTrue(metrics.contains("mesa_egress_leaks_blocked_total{credential=\"llm\",place=\"body\"}"), metrics);
    }

    @Test
    void aSentinelInABodyHeadedOutsideItsScopeIsRefused() throws Exception {
        int before = other.seen().size();
        HttpResponse<String> response = post(otherUrl("/issues"), "application/json",
                ("{\"title\":\"env\",\"body\":\"OPENAI_API_KEY=" + SENTINEL + "\"}").getBytes(StandardCharsets.UTF_8));
        assertRefused(response, "credential_endpoint_mismatch", other, before);
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("credential_endpoint_mismatch")
                && r.get("path").asText().equals("/issues"));
        assertEquals("body", record.get("place").asText());
        // Inside its scope the same body goes through: the sentinel belongs there.
        int seen = llm.seen().size();
        HttpResponse<String> allowed = post(llmUrl("/v1/chat"), "application/json",
                ("{\"note\":\"" + SENTINEL + "\"}").getBytes(StandardCharsets.UTF_8));
        assertEquals(200, allowed.statusCode(), allowed.body());
        assertEquals(seen + 1, llm.seen().size());
        assertTrue(llm.seen().get(seen).complete);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"percent", "base64", "base64url", "json-escaped", "mime-base64"})
    void everySpellingOfTheSecretIsFound(String spelling) throws Exception {
        String value = switch (spelling) {
            case "percent" -> "k=" + URLEncoder.encode(SECRET, StandardCharsets.UTF_8).replace("-", "%2D");
            case "base64" -> "{\"auth\":\"" + Base64.getEncoder().encodeToString(("user:" + SECRET).getBytes(StandardCharsets.UTF_8)) + "\"}";
            case "base64url" -> "{\"t\":\"" + Base64.getUrlEncoder().encodeToString(("x" + SECRET + "??>>").getBytes(StandardCharsets.UTF_8)) + "\"}";
            case "json-escaped" -> "{\"k\":\"" + SECRET.replace("-", "\\u002d") + "\"}";
            default -> Base64.getMimeEncoder().encodeToString(("a".repeat(50) + SECRET).getBytes(StandardCharsets.UTF_8));
        };
        int before = other.seen().size();
        assertRefused(post(otherUrl("/form"), "application/x-www-form-urlencoded", value.getBytes(StandardCharsets.UTF_8)),
                "secret_leak", other, before);
    }

    /**
     * The encodings a second security review carried a secret through to a plain-http upstream in
     * (issue 40): each reached the upstream before.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hex", "HEX", "double-percent", "utf-16le-json", "quoted-printable", "html-decimal", "html-hex"})
    void anEncodingTheReviewUsedIsRefusedOverPlainHttp(String encoding) throws Exception {
        byte[] secret = SECRET.getBytes(StandardCharsets.UTF_8);
        StringBuilder doubled = new StringBuilder();
        StringBuilder decimal = new StringBuilder();
        StringBuilder hexRefs = new StringBuilder();
        for (byte b : secret) {
            doubled.append("%25").append(HexFormat.of().withUpperCase().toHexDigits(b));
            decimal.append("&#").append(b).append(';');
            hexRefs.append("&#x").append(HexFormat.of().toHexDigits(b)).append(';');
        }
        String hex = HexFormat.of().formatHex(("token=" + SECRET).getBytes(StandardCharsets.UTF_8));
        String contentType = "text/plain";
        byte[] body = switch (encoding) {
            case "hex" -> ("{\"blob\":\"" + hex + "\"}").getBytes(StandardCharsets.US_ASCII);
            case "HEX" -> hex.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
            case "double-percent" -> ("q=" + doubled).getBytes(StandardCharsets.US_ASCII);
            case "utf-16le-json" -> ("{\"key\":\"" + SECRET + "\"}").getBytes(StandardCharsets.UTF_16LE);
            case "quoted-printable" -> ("--b\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nkey=3D" + SECRET.substring(0, 9) + "=\r\n"
                    + SECRET.substring(9) + "\r\n--b--\r\n").getBytes(StandardCharsets.US_ASCII);
            case "html-decimal" -> ("<p>" + decimal + "</p>").getBytes(StandardCharsets.US_ASCII);
            default -> ("<p>" + hexRefs + "</p>").getBytes(StandardCharsets.US_ASCII);
        };
        int before = plain.seen().size();
        HttpResponse<String> response = post("http://127.0.0.1:" + plain.port() + "/paste", contentType, body);
        assertRefused(response, "secret_leak", plain, before);
        assertTrue(response.body().contains("request body"), response.body());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"gzip", "deflate", "br", "zstd"})
    void aCompressedRequestBodyIsScannedDecoded(String coding) throws Exception {
        byte[] body = BodyUpstream.encode(("{\"log\":\"" + "x".repeat(5000) + SECRET + "\"}").getBytes(StandardCharsets.UTF_8), coding);
        int before = other.seen().size();
        assertRefused(post(otherUrl("/telemetry"), "application/json", body, "Content-Encoding", coding), "secret_leak", other, before);
        // A clean compressed body goes through unchanged.
        byte[] clean = BodyUpstream.encode("{\"log\":\"nothing here\"}".getBytes(StandardCharsets.UTF_8), coding);
        HttpResponse<String> ok = post(otherUrl("/telemetry"), "application/json", clean, "Content-Encoding", coding);
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals(clean.length, other.seen().get(other.seen().size() - 1).bodyBytes);
    }

    @Test
    void aSecretInTheSecondMemberOfAGzipBodyIsFound() throws Exception {
        byte[] first = BodyUpstream.encode("{\"a\":1}".getBytes(StandardCharsets.UTF_8), "gzip");
        byte[] second = BodyUpstream.encode(SECRET.getBytes(StandardCharsets.UTF_8), "gzip");
        byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        int before = other.seen().size();
        assertRefused(post(otherUrl("/t"), "application/json", both, "Content-Encoding", "gzip"), "secret_leak", other, before);
    }

    @Test
    void aCodingTheProxyCannotDecodeIsRefusedOnACredentialHostAndScannedAsIsElsewhere() throws Exception {
        int before = llm.seen().size();
        HttpResponse<String> refused = post(llmUrl("/v1/upload"), "application/octet-stream", "opaque".getBytes(StandardCharsets.UTF_8),
                "Content-Encoding", "compress");
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("cannot decode"), refused.body());
        assertEquals(before, llm.seen().size());
        HttpResponse<String> elsewhere = post(otherUrl("/upload"), "application/octet-stream", "opaque".getBytes(StandardCharsets.UTF_8),
                "Content-Encoding", "compress");
        assertEquals(200, elsewhere.statusCode(), elsewhere.body());
        int seen = other.seen().size();
        assertRefused(post(otherUrl("/upload"), "application/octet-stream", ("raw " + SECRET).getBytes(StandardCharsets.UTF_8),
                "Content-Encoding", "compress"), "secret_leak", other, seen);
    }

    @Test
    void aSecretSplitAcrossChunksAndDelayedIsFound() throws Exception {
        int before = plain.seen().size();
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", proxy.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST http://127.0.0.1:" + plain.port() + "/chunks HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Transfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String half = SECRET.substring(0, 11);
            String rest = SECRET.substring(11);
            out.write((Integer.toHexString(half.length() + 6) + "\r\nvalue=" + half + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(200);
            out.write((Integer.toHexString(rest.length()) + "\r\n" + rest + "\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(5000);
            String answer = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 403", answer);
        }
        assertEquals(before, plain.seen().size(), "nothing reached the upstream");
    }

    @Test
    void curlMultipartAndFormPostsOverPlainHttpAreScanned() throws Exception {
        int before = plain.seen().size();
        Path file = dir.resolve("notes.txt");
        Files.writeString(file, "line one\nkey: " + SECRET + "\nline three\n");
        Curl.Result multipart = curl("-F", "title=notes", "-F", "file=@" + file, "http://127.0.0.1:" + plain.port() + "/multipart");
        assertTrue(multipart.out().contains("secret_leak"), multipart.out() + multipart.err());
        Curl.Result form = curl("--data-urlencode", "k=" + SECRET, "http://127.0.0.1:" + plain.port() + "/form");
        assertTrue(form.out().contains("secret_leak"), form.out() + form.err());
        assertEquals(before, plain.seen().size(), "nothing reached the upstream");
        Curl.Result clean = curl("-F", "title=notes", "http://127.0.0.1:" + plain.port() + "/multipart");
        assertTrue(clean.out().contains("\"bytes\":"), clean.out() + clean.err());
    }

    @Test
    void aClientWaitingForOneHundredContinueGetsItFromTheProxyAndItsBodyArrivesWhole() throws Exception {
        Path file = dir.resolve("upload.bin");
        byte[] data = new byte[3 << 20];
        java.util.Arrays.fill(data, (byte) 'q');
        Files.write(file, data);
        int before = plain.seen().size();
        Curl.Result r = curl("-v", "-H", "Expect: 100-continue", "--data-binary", "@" + file, "http://127.0.0.1:" + plain.port() + "/upload");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("HTTP/1.1 100 Continue"), r.err());
        assertTrue(r.out().contains("\"bytes\":" + data.length), r.out());
        assertEquals(before + 1, plain.seen().size());
        assertEquals(null, plain.seen().get(before).header("Expect"), "the proxy answered the expectation itself");
    }

    @Test
    void pythonPostingAJsonToolCallWithTheSecretIsRefused() throws Exception {
        int before = other.seen().size();
        String script = String.join("\n",
                "import json, urllib.request, urllib.error",
                "body = json.dumps({'tool': 'shell', 'args': {'env': 'KEY=" + SECRET + "'}}).encode()",
                "req = urllib.request.Request('" + otherUrl("/tool") + "', data=body, headers={'Content-Type': 'application/json'})",
                "try:",
                "    urllib.request.urlopen(req)",
                "    print('sent')",
                "except urllib.error.HTTPError as e:",
                "    print(e.code, e.headers.get('X-Mesa-Egress-Reason'))");
        Python.Result python = Python.through(proxy.port(), proxyCa, script);
        assertEquals("403 secret_leak", python.out().trim(), python.err());
        assertEquals(before, other.seen().size());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"identity", "gzip", "deflate", "br", "zstd"})
    void aResponseEchoingTheSecretComesBackWithTheSentinelWhateverItsCoding(String coding) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(llmUrl("/v1/echo-key?coding=" + coding)))
                .header("Accept-Encoding", "gzip, deflate, br, zstd").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals("Bearer " + SECRET, llm.seen().get(llm.seen().size() - 1).header("Authorization"));
        assertNull(response.headers().firstValue("Content-Encoding").orElse(null), "decoded for the client");
        assertEquals("{\"error\":\"invalid key: Bearer " + SENTINEL + "\"}", response.body());
        assertEquals(Long.toString(response.body().getBytes(StandardCharsets.UTF_8).length),
                response.headers().firstValue("Content-Length").orElse(null), "the scrubbed body's own length, not chunked");
        assertNull(response.headers().firstValue("Transfer-Encoding").orElse(null));
    }

    /** A scrubbed body within limits.scan_hold_bytes keeps a Content-Length (its new one); a longer one streams chunked. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {200 * 1024, 3 * 1024 * 1024})
    void aScrubbedDownloadKeepsItsLengthWithinTheHoldAndStreamsBeyondIt(int size) throws Exception {
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(llmUrl("/v1/download?size=" + size))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode());
        String body = new String(response.body(), StandardCharsets.UTF_8);
        int blocks = (size + 64 * 1024 - 1) / (64 * 1024);
        assertEquals(blocks, body.split(java.util.regex.Pattern.quote(SENTINEL), -1).length - 1, "every echoed key scrubbed");
        assertFalse(body.contains(SECRET));
        int scrubbed = size + blocks * (("Bearer " + SENTINEL).length() - ("Bearer " + SECRET).length());
        assertEquals(scrubbed, response.body().length);
        if (size <= 1024 * 1024) {
            assertEquals(Integer.toString(scrubbed), response.headers().firstValue("Content-Length").orElse(null));
        } else {
            assertNull(response.headers().firstValue("Content-Length").orElse(null), "past the hold: streamed");
            assertEquals("chunked", response.headers().firstValue("Transfer-Encoding").orElse(null));
        }
    }

    @Test
    void curlCompressedGetsTheScrubbedBody() throws Exception {
        Curl.Result r = curl("--compressed", "--cacert", proxyCa.toString(), llmUrl("/v1/echo-key?coding=gzip"));
        assertEquals(0, r.exit(), r.err());
        assertEquals("{\"error\":\"invalid key: Bearer " + SENTINEL + "\"}", r.out());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"identity", "gzip"})
    void serverSentEventsStillArriveOneByOne(String coding) throws Exception {
        HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(URI.create(llmUrl("/v1/sse?coding=" + coding)))
                .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        List<Long> arrivals = new ArrayList<>();
        StringBuilder all = new StringBuilder();
        long start = System.nanoTime();
        try (var reader = new java.io.BufferedReader(new java.io.InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("data: ")) {
                    arrivals.add((System.nanoTime() - start) / 1_000_000);
                    all.append(line).append('\n');
                }
            }
        }
        assertEquals(3, arrivals.size(), all.toString());
        // Written 400 ms apart: each event reached the client before the next was written.
        assertTrue(arrivals.get(1) - arrivals.get(0) >= 250 && arrivals.get(2) - arrivals.get(1) >= 250, "arrivals " + arrivals);
        assertFalse(all.toString().contains(SECRET), all.toString());
        assertTrue(all.toString().contains(SENTINEL), all.toString());
    }

    @Test
    void aLargeBodyWithTheSecretPastTheHoldBoundNeverCompletesUpstream() throws Exception {
        Path ca = dir.resolve("upstream-ca.pem");
        try (ProxyFixture small = ProxyFixture.start(config(ca, "limits:\n  scan_hold_bytes: 65536\n"))) {
            HttpClient c = HttpClient.newBuilder()
                    .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", small.port())))
                    .sslContext(TestPki.trusting(small.server().ca().certificate()))
                    .version(HttpClient.Version.HTTP_1_1)
                    .build();
            byte[] body = new byte[1 << 20];
            java.util.Arrays.fill(body, (byte) 'a');
            byte[] s = SECRET.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(s, 0, body, body.length - 100, s.length);
            int before = other.seen().size();
            int status;
            try {
                status = c.send(HttpRequest.newBuilder(URI.create(otherUrl("/big-upload")))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
            } catch (IOException e) {
                status = -1; // the connection was cut: also a refusal the client notices
            }
            assertTrue(status == 403 || status == -1, "status " + status);
            for (int i = 0; i < 100 && (other.seen().size() == before || !other.seen().get(before).complete
                    && other.seen().get(before).bodyBytes == 0); i++) {
                Thread.sleep(20);
            }
            assertEquals(before + 1, other.seen().size(), "the head and the held part went out");
            Thread.sleep(300);
            BodyUpstream.Seen seen = other.seen().get(before);
            assertFalse(seen.complete, "the upstream never saw the whole body (" + seen.bodyBytes + " bytes)");
            assertTrue(seen.bodyBytes < body.length - 100, "the secret never arrived: " + seen.bodyBytes);
            JsonNode record = small.awaitAuditRecord(r -> r.get("reason").asText().equals("secret_leak"));
            assertEquals("body", record.get("place").asText());
        }
    }

    private static Curl.Result curl(String... args) throws IOException, InterruptedException {
        return Curl.through(proxy.port(), args);
    }
}
