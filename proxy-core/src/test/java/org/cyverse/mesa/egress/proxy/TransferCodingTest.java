package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.SSLServerSocket;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An answer framed with a transfer-coding other than {@code chunked} (RFC 9112 section 7: gzip,
 * deflate, compress, stacked before the final chunked) carries a body the proxy would pass on
 * unread: re-framed as plain chunked, its coded bytes would reach the client without a
 * {@code Content-Encoding}, and an echoed secret inside would escape the scrubbing. It is refused
 * 502 instead, on every coding. The upstream is a raw TLS server (the JDK's HTTP server cannot
 * send such framing), answering the request's {@code Authorization} header, the injected secret.
 */
class TransferCodingTest {

    static final String SECRET = "sk-live-transfer-0123456789abcdef";
    static final String SENTINEL = "sk-mesa-sentinel";

    @TempDir
    static Path dir;
    private static SSLServerSocket upstream;
    private static final ExecutorService serving = Executors.newCachedThreadPool();
    private static ProxyFixture proxy;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("upstream");
        upstream = (SSLServerSocket) pki.serverContext("localhost").getServerSocketFactory().createServerSocket(0, 16,
                InetAddress.getByName("127.0.0.1"));
        serving.execute(TransferCodingTest::serve);
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Files.writeString(dir.resolve("secret"), SECRET);
        proxy = ProxyFixture.start("profile: P2\ntls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.getLocalPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: llm\n    hosts: [\"localhost\"]\n    ports: [" + upstream.getLocalPort() + "]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: Authorization\n    secret: \"file:" + dir.resolve("secret") + "\"\n");
        proxy.awaitReady(Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        upstream.close();
        serving.shutdownNow();
    }

    @ParameterizedTest(name = "Transfer-Encoding: {0}")
    @ValueSource(strings = {"gzip, chunked", "deflate, chunked", "compress, chunked", "gzip", "x-custom, chunked"})
    void anAnswerInATransferCodingTheProxyDoesNotDecodeIsRefusedNeverPassedOnUnread(String coding) throws Exception {
        HttpResponse<byte[]> response = proxy.interceptingClient().send(HttpRequest.newBuilder(
                URI.create("https://localhost:" + upstream.getLocalPort() + "/echo?te=" + coding.replace(", ", "+")))
                .header("Authorization", "Bearer " + SENTINEL).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());

        assertEquals(502, response.statusCode(), new String(response.body(), StandardCharsets.ISO_8859_1));
        assertEquals("upstream_unreachable", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertTrue(body.contains("transfer-coding"), body);
        assertFalse(body.contains(SECRET), body);
    }

    @ParameterizedTest(name = "Transfer-Encoding: {0}")
    @ValueSource(strings = {"chunked", "Chunked"})
    void plainChunkedStillArrivesScrubbed(String coding) throws Exception {
        HttpResponse<String> response = proxy.interceptingClient().send(HttpRequest.newBuilder(
                URI.create("https://localhost:" + upstream.getLocalPort() + "/echo?te=" + coding))
                .header("Authorization", "Bearer " + SENTINEL).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());

        assertEquals(200, response.statusCode(), response.body());
        assertEquals("you sent Bearer " + SENTINEL, response.body(), "the echoed secret comes back as the sentinel");
    }

    /** One request per connection: answers "you sent AUTHORIZATION" with the coding the query names. */
    private static void serve() {
        while (!upstream.isClosed()) {
            try {
                Socket socket = upstream.accept();
                serving.execute(() -> answer(socket));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void answer(Socket socket) {
        try (socket) {
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            String requestLine = in.readLine();
            String authorization = "";
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                if (line.regionMatches(true, 0, "authorization:", 0, 14)) {
                    authorization = line.substring(14).trim();
                }
            }
            String coding = requestLine.replaceAll(".*te=([^ ]*) .*", "$1").replace("+", ", ");
            byte[] content = ("you sent " + authorization).getBytes(StandardCharsets.UTF_8);
            for (String c : coding.split(", ")) {
                if (c.equals("gzip")) {
                    content = coded(content, true);
                } else if (c.equals("deflate") || c.equals("compress")) {
                    content = coded(content, false); // compress (LZW) stood in by zlib: the proxy must refuse either way
                }
            }
            OutputStream out = socket.getOutputStream();
            boolean chunked = coding.toLowerCase().endsWith("chunked");
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: " + coding + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            if (chunked) {
                out.write((Integer.toHexString(content.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(content);
                out.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            } else {
                out.write(content); // ends when the connection closes
            }
            out.flush();
        } catch (IOException | RuntimeException e) {
            // the proxy hung up on a refused answer
        }
    }

    private static byte[] coded(byte[] content, boolean gzip) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = gzip ? new GZIPOutputStream(bytes) : new DeflaterOutputStream(bytes)) {
            out.write(content);
        }
        return bytes.toByteArray();
    }
}
