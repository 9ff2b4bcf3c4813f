package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 40's second finding: the credential's own host hands the injected secret back encoded (the
 * whole echo of the request as base64, URL-safe base64, hex, UTF-16), for the client to decode. The
 * proxy scrubs those spellings too: whatever the echo's offset in the base64 text, the decoded
 * answer never holds the secret.
 */
class EncodedEchoTest {

    static final String SECRET = "sk-live-encoded-echo-0123456789abcdef";
    static final String SENTINEL = "sk-mesa-sentinel";

    @TempDir
    static Path dir;
    private static HttpsServer upstream;
    private static ProxyFixture proxy;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("upstream");
        upstream = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.setHttpsConfigurator(new HttpsConfigurator(pki.serverContext("localhost")));
        upstream.createContext("/echo", EncodedEchoTest::echo);
        upstream.start();
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Files.writeString(dir.resolve("secret"), SECRET);
        proxy = ProxyFixture.start("profile: P2\ntls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.getAddress().getPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: api\n    hosts: [\"localhost\"]\n    ports: [" + upstream.getAddress().getPort() + "]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: Authorization\n    secret: \"file:" + dir.resolve("secret") + "\"\n");
        proxy.awaitReady(Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        upstream.stop(0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"base64-0", "base64-1", "base64-2", "base64url-1", "hex", "HEX", "utf-16le", "utf-16be"})
    void anEncodedEchoDecodesWithoutTheSecret(String encoding) throws Exception {
        HttpResponse<byte[]> response = proxy.interceptingClient().send(HttpRequest.newBuilder(
                URI.create("https://localhost:" + upstream.getAddress().getPort() + "/echo?as=" + encoding))
                .header("Authorization", "Bearer " + SENTINEL).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());

        assertEquals(200, response.statusCode());
        String decoded = decode(encoding, response.body());
        assertFalse(decoded.contains(SECRET), "the client decoded the secret: " + decoded);
        assertTrue(decoded.startsWith("x".repeat(prefix(encoding)) + "request: Authorization=Bearer "), "the rest of the echo decodes: " + decoded);
        if (!encoding.startsWith("base64")) {
            assertTrue(decoded.contains("Bearer " + SENTINEL), "the sentinel in the same encoding: " + decoded);
        }
    }

    private static int prefix(String encoding) {
        return encoding.startsWith("base64") ? encoding.charAt(encoding.length() - 1) - '0' : 0;
    }

    private static String decode(String encoding, byte[] body) {
        String text = new String(body, StandardCharsets.ISO_8859_1);
        byte[] bytes = switch (encoding) {
            case "hex", "HEX" -> HexFormat.of().parseHex(text.strip());
            case "utf-16le" -> new String(body, StandardCharsets.UTF_16LE).getBytes(StandardCharsets.UTF_8);
            case "utf-16be" -> new String(body, StandardCharsets.UTF_16BE).getBytes(StandardCharsets.UTF_8);
            default -> (encoding.startsWith("base64url") ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(text.strip());
        };
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** The request's Authorization quoted, then encoded as {@code as} says; base64-N puts N bytes before it (its offset). */
    private static void echo(HttpExchange exchange) throws IOException {
        String as = exchange.getRequestURI().getQuery().substring(3);
        String plain = "request: Authorization=" + exchange.getRequestHeaders().getFirst("Authorization") + "; end";
        byte[] body = switch (as) {
            case "hex" -> HexFormat.of().formatHex(plain.getBytes(StandardCharsets.UTF_8)).getBytes(StandardCharsets.US_ASCII);
            case "HEX" -> HexFormat.of().withUpperCase().formatHex(plain.getBytes(StandardCharsets.UTF_8)).getBytes(StandardCharsets.US_ASCII);
            case "utf-16le" -> plain.getBytes(StandardCharsets.UTF_16LE);
            case "utf-16be" -> plain.getBytes(StandardCharsets.UTF_16BE);
            default -> {
                String padded = "x".repeat(as.charAt(as.length() - 1) - '0') + plain;
                Base64.Encoder encoder = as.startsWith("base64url") ? Base64.getUrlEncoder() : Base64.getEncoder();
                yield encoder.encode(padded.getBytes(StandardCharsets.UTF_8));
            }
        };
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
