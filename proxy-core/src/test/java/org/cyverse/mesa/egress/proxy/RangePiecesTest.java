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
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40's first finding: on a credential's own host, an endpoint that reflects the request and
 * honours {@code Range} (RFC 9110 section 14) answers pieces each shorter than the injected secret;
 * no piece matches the scrubbing, and the agent joins them into the real value. The proxy asks
 * for whole answers on every request it puts a secret into ({@code WholeAnswers}): the echo then
 * comes whole, with the sentinel in place of the secret. Over HTTP/1.1 and HTTP/2 alike.
 */
class RangePiecesTest {

    static final String SECRET = "sk-live-range-pieces-0123456789abcdef";
    static final String SENTINEL = "sk-mesa-sentinel";
    static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    @TempDir
    static Path dir;
    private static HttpsServer upstream;
    private static final List<String> rangesSeen = new CopyOnWriteArrayList<>();
    private static ProxyFixture proxy;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("upstream");
        upstream = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.setHttpsConfigurator(new HttpsConfigurator(pki.serverContext("localhost")));
        upstream.createContext("/debug/echo", RangePiecesTest::reflect);
        upstream.start();
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Files.writeString(dir.resolve("secret"), SECRET);
        proxy = ProxyFixture.start("profile: P2\ntls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: api\n    hosts: [\"localhost\"]\n    ports: [" + port() + "]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: Authorization\n    secret: \"file:" + dir.resolve("secret") + "\"\n");
        proxy.awaitReady(Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        upstream.stop(0);
    }

    @Test
    void piecesOfAReflectedSecretNeverReassembleOverHttp1() throws Exception {
        assertNoPiecesReassemble(proxy.interceptingClient());
    }

    @Test
    void piecesOfAReflectedSecretNeverReassembleOverHttp2() throws Exception {
        HttpClient h2 = HttpClient.newBuilder().proxy(proxy.interceptingClient().proxy().orElseThrow())
                .sslContext(TestPki.trusting(proxy.server().ca().certificate())).version(HttpClient.Version.HTTP_2).build();
        assertNoPiecesReassemble(h2);
    }

    private void assertNoPiecesReassemble(HttpClient agent) throws Exception {
        rangesSeen.clear();
        StringBuilder joined = new StringBuilder();
        for (int from = 0; from < 160; from += 8) {
            HttpResponse<String> piece = agent.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port() + "/debug/echo"))
                    .header("Authorization", "Bearer " + SENTINEL).header("Range", "bytes=" + from + "-" + (from + 7))
                    .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (piece.statusCode() == 416) {
                break; // past the end of the echo
            }
            assertTrue(piece.statusCode() == 200 || piece.statusCode() == 206, piece.statusCode() + " " + piece.body());
            joined.append(piece.body());
            if (piece.statusCode() == 200) {
                assertTrue(piece.body().contains("Bearer " + SENTINEL), "a whole answer, the secret scrubbed: " + piece.body());
            }
        }
        assertFalse(joined.toString().contains(SECRET), "the joined pieces hold the real secret: " + joined);
        assertTrue(rangesSeen.stream().allMatch(r -> r.equals("none")), "the upstream was never asked for a piece: " + rangesSeen);
    }

    /** Answers "request headers: Authorization=..." honouring one byte range, as a debug endpoint of a real API might. */
    private static void reflect(HttpExchange exchange) throws IOException {
        byte[] whole = ("request headers: Authorization=" + exchange.getRequestHeaders().getFirst("Authorization") + "; path="
                + exchange.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.UTF_8);
        String range = exchange.getRequestHeaders().getFirst("Range");
        rangesSeen.add(range == null ? "none" : range);
        Matcher m = range == null ? null : RANGE.matcher(range);
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        if (m != null && m.matches()) {
            int from = Integer.parseInt(m.group(1));
            int to = Math.min(Integer.parseInt(m.group(2)), whole.length - 1);
            if (from >= whole.length) {
                exchange.getResponseHeaders().set("Content-Range", "bytes */" + whole.length);
                exchange.sendResponseHeaders(416, -1);
                exchange.close();
                return;
            }
            exchange.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + to + "/" + whole.length);
            exchange.sendResponseHeaders(206, to - from + 1);
            exchange.getResponseBody().write(whole, from, to - from + 1);
        } else {
            exchange.sendResponseHeaders(200, whole.length);
            exchange.getResponseBody().write(whole);
        }
        exchange.close();
    }

    private static int port() {
        return upstream.getAddress().getPort();
    }
}
