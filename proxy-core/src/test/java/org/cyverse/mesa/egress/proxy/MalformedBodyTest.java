package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request body the decoder cannot frame (a bad chunk size, a chunk without its CRLF) after the
 * head and part of the body went upstream: the upstream must never see a complete request (no
 * chunked terminator, so it cannot act on a truncated upload), and the client gets 400.
 */
class MalformedBodyTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"zz\r\nabc\r\n0\r\n\r\n", "3\r\nabcdef\r\n0\r\n\r\n",
        // Issue 17, item 7: chunk sizes a lenient parser reads as 0 (the body's end) or wraps around.
        "0x5\r\nhello\r\n0\r\n\r\n", "10000000000000005\r\nhello\r\n0\r\n\r\n", "+5\r\nhello\r\n0\r\n\r\n",
        "-1\r\nhello\r\n0\r\n\r\n", " 5\r\nhello\r\n0\r\n\r\n"})
    void aBodyThatCannotBeFramedNeverEndsCleanlyUpstream(String badRest) throws Exception {
        try (ServerSocket upstream = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            CompletableFuture<String> received = CompletableFuture.supplyAsync(() -> readAll(upstream));
            try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: ["
                    + upstream.getLocalPort() + "]\nnetwork:\n  allow_private: [\"127.0.0.1/32\"]\n");
                    RawHttp raw = new RawHttp(proxy.port())) {
                raw.send("POST http://127.0.0.1:" + upstream.getLocalPort() + "/upload HTTP/1.1\r\nHost: x\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
                Thread.sleep(200); // the head and the first chunk go upstream on their own
                raw.send(badRest);
                RawHttp.Response response = raw.read();
                assertEquals(400, response.status(), response.toString());
                assertEquals("bad_request", response.header("X-Mesa-Egress-Reason"));
                assertTrue(response.body().contains("malformed request body"), response.body());
                assertTrue(raw.closedByPeer(3000), "the connection closes after a body that cannot be framed");
                String upstreamSaw = received.get(10, TimeUnit.SECONDS);
                assertTrue(upstreamSaw.contains("hello"), upstreamSaw);
                assertFalse(upstreamSaw.contains("0\r\n\r\n"), "the upstream saw a complete chunked request:\n" + upstreamSaw);
                JsonNodes.assertDenied(proxy, "bad_request");
            }
        }
    }

    /** Everything one connection sends until it closes (at most 10 s). */
    private static String readAll(ServerSocket server) {
        try (Socket socket = server.accept()) {
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                bytes.write(buffer, 0, n);
            }
            return bytes.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "upstream failed: " + e;
        }
    }

    /** The audit record of the refusal. */
    private static final class JsonNodes {
        static void assertDenied(ProxyFixture proxy, String reason) throws InterruptedException {
            var record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals(reason));
            assertEquals("deny", record.get("decision").asText());
            assertEquals("/upload", record.get("path").asText());
        }
    }
}
