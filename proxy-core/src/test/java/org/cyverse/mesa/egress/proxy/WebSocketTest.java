package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testkit.RawWebSocket;
import org.cyverse.mesa.egress.testkit.WebSocketUpstream;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WebSocket (RFC 6455) through the proxy, intercepted ({@code wss://}) and as a plain proxy
 * request ({@code ws://}): the opening handshake is admitted and injected like any request, the
 * messages are relayed both ways, the agent's are scanned and the upstream's scrubbed, every
 * protocol error is answered with its close code, and the connection ends in one audit record.
 * The upstream is Netty's WebSocket server; the clients are the JDK's {@code WebSocket} and a raw
 * frame writer for what a real client will not send.
 */
class WebSocketTest {

    static final String SECRET = "sk-ant-REAL-ws-0123456789abcdef";
    static final String OTHER_SECRET = "other-REAL-ws-secret-42";
    static final String BODY_SECRET = "body-REAL-ws-secret-77";

    @TempDir
    static Path dir;

    private static WebSocketUpstream wss;
    private static WebSocketUpstream ws;
    private static ProxyFixture proxy;
    private static SSLContext agentTls;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("ws-upstream");
        wss = new WebSocketUpstream(pki.serverContext("localhost"));
        ws = new WebSocketUpstream(null);
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Path secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "anthropic: \"" + SECRET + "\"\nother: \"" + OTHER_SECRET + "\"\nbody: \"" + BODY_SECRET + "\"\n");
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n"
                + "  - host: \"localhost\"\n    ports: [" + wss.port() + "]\n"
                + "  - host: \"127.0.0.1\"\n    ports: [" + ws.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "limits:\n  websocket_max_message_bytes: 4096\n"
                + "credentials:\n"
                + "  - name: anthropic\n    hosts: [\"localhost\"]\n    ports: [" + wss.port() + "]\n"
                + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#anthropic\"\n"
                + "  - name: bodykey\n    hosts: [\"localhost\"]\n    ports: [" + wss.port() + "]\n"
                + "    sentinel: \"body-sentinel\"\n    header: \"x-body-key\"\n    body_substitution: true\n"
                + "    secret: \"file:" + secrets + "#body\"\n"
                + "  - name: other\n    hosts: [\"github.com\"]\n"
                + "    sentinel: \"other-sentinel\"\n    header: \"x-other-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#other\"\n");
        proxy.awaitReady(Duration.ofSeconds(5));
        agentTls = TestPki.trusting(proxy.server().ca().certificate());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            String audit = proxy.auditText();
            proxy.close();
            assertFalse(audit.contains(SECRET) || audit.contains(OTHER_SECRET) || audit.contains(BODY_SECRET), "a secret reached the audit log");
        } finally {
            wss.close();
            ws.close();
        }
    }

    @BeforeEach
    void clear() {
        wss.received.clear();
        wss.closes.clear();
        ws.received.clear();
        ws.closes.clear();
    }

    private static RawWebSocket intercepted(String path) throws Exception {
        return RawWebSocket.intercepted(proxy.port(), "localhost", wss.port(), path, agentTls, "");
    }

    private static JsonNode record(String path) throws InterruptedException {
        return proxy.awaitAuditRecord(r -> path.equals(r.path("path").asText()) && r.has("websocket"));
    }

    @Test
    void theJdkClientTalksThroughInterceptionWithTheCredentialInjected() throws Exception {
        HttpClient client = HttpClient.newBuilder().proxy(java.net.ProxySelector.of(new java.net.InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(agentTls).build();
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        CompletableFuture<Integer> closed = new CompletableFuture<>();
        WebSocket socket = client.newWebSocketBuilder().header("x-api-key", "sk-ant-sentinel")
                .buildAsync(URI.create("wss://localhost:" + wss.port() + "/echo/jdk"), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            got.add(text.toString());
                            text.setLength(0);
                        }
                        webSocket.request(1);
                        return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
                        closed.complete(statusCode);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        socket.sendText("first", true).get(5, TimeUnit.SECONDS);
        assertEquals("first", got.poll(5, TimeUnit.SECONDS));
        socket.sendText("say:the key is " + SECRET.substring(0, 3), true).get(5, TimeUnit.SECONDS); // harmless: a prefix
        assertEquals("the key is sk-", got.poll(5, TimeUnit.SECONDS));
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
        assertEquals(1000, closed.get(5, TimeUnit.SECONDS));

        WebSocketUpstream.Handshake handshake = wss.handshakes().stream().filter(h -> h.uri().equals("/echo/jdk")).findFirst().orElseThrow();
        assertEquals(SECRET, handshake.headers().get("x-api-key"), "the upstream got the real key in the handshake");
        assertNull(handshake.headers().get("sec-websocket-extensions"), "extensions are declined: every message is scanned as written");
        JsonNode record = record("/echo/jdk");
        assertEquals("intercept", record.get("mode").asText());
        assertEquals("allow", record.get("decision").asText());
        assertEquals(101, record.get("status").asInt());
        assertEquals("anthropic", record.get("credential").asText());
        assertEquals(2, record.get("websocket").get("messages_up").asInt());
        assertEquals(2, record.get("websocket").get("messages_down").asInt());
        assertEquals(1000, record.get("websocket").get("close_code").asInt());
        assertEquals("client", record.get("websocket").get("closed_by").asText());
    }

    @Test
    void aSecretEchoedByTheUpstreamReachesTheAgentAsItsSentinelEvenSplitAcrossFrames() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/scrub")) {
            assertEquals(101, socket.status());
            assertNull(socket.header("Sec-WebSocket-Extensions"));
            // The upstream quotes the key its handshake carried (the real one), split across two frames.
            socket.sendText("echo-key");
            RawWebSocket.Frame message = socket.readMessage();
            assertEquals("yours is sk-ant-sentinel ok", message.text());
        }
    }

    @Test
    void aRealSecretInAMessageClosesWith1008AndNeverLeaves() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/leak")) {
            socket.sendText("before");
            assertEquals("before", socket.readMessage().text());
            // Split over three fragments: the scan sees the message whole.
            byte[] leak = ("{\"key\":\"" + SECRET + "\"}").getBytes(StandardCharsets.UTF_8);
            socket.send(RawWebSocket.TEXT, false, java.util.Arrays.copyOfRange(leak, 0, 12), true);
            socket.send(RawWebSocket.CONTINUATION, false, java.util.Arrays.copyOfRange(leak, 12, 20), true);
            socket.send(RawWebSocket.CONTINUATION, true, java.util.Arrays.copyOfRange(leak, 20, leak.length), true);
            RawWebSocket.Frame close = socket.readMessage();
            assertEquals(RawWebSocket.CLOSE, close.opcode());
            assertEquals(1008, close.closeCode());
            assertTrue(close.closeReason().contains("secret_leak"), close.closeReason());
            assertTrue(socket.closedByPeer());
        }
        assertEquals(1001, wss.closes.poll(5, TimeUnit.SECONDS), "the upstream was told the session ended");
        assertEquals("before", wss.received.poll());
        assertNull(wss.received.poll(), "no part of the leaking message reached the upstream");
        JsonNode record = record("/echo/leak");
        assertEquals("deny", record.get("decision").asText());
        assertEquals("secret_leak", record.get("reason").asText());
        assertEquals("websocket", record.get("place").asText());
        assertEquals("anthropic", record.get("credential").asText());
        assertEquals(1008, record.get("websocket").get("close_code").asInt());
        assertEquals("proxy", record.get("websocket").get("closed_by").asText());
        assertTrue(proxy.metric("mesa_egress_leaks_blocked_total{credential=\"anthropic\",place=\"websocket\"}") >= 1);
    }

    @Test
    void aBodySubstitutionCredentialsSentinelIsReplacedInMessagesAndItsEchoComesBackAsTheSentinel() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/substitute")) {
            socket.sendText("{\"token\":\"body-sentinel\"}");
            assertEquals("{\"token\":\"body-sentinel\"}", socket.readMessage().text(), "the upstream's echo of the real value is scrubbed");
        }
        assertEquals("{\"token\":\"" + BODY_SECRET + "\"}", wss.received.poll(5, TimeUnit.SECONDS), "the upstream got the real value");
    }

    @Test
    void aSentinelOfAnotherHostsCredentialClosesWithAMismatch() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/mismatch")) {
            socket.sendText("use other-sentinel here");
            RawWebSocket.Frame close = socket.readMessage();
            assertEquals(1008, close.closeCode());
            assertTrue(close.closeReason().contains("credential_endpoint_mismatch"), close.closeReason());
        }
        assertEquals("credential_endpoint_mismatch", record("/echo/mismatch").get("reason").asText());
        assertNull(wss.received.poll(1, TimeUnit.SECONDS));
    }

    @Test
    void aSecretInAPingIsCaughtToo() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/ping")) {
            socket.send(RawWebSocket.PING, true, "ok".getBytes(StandardCharsets.UTF_8), true);
            RawWebSocket.Frame pong = socket.read();
            assertEquals(RawWebSocket.PONG, pong.opcode());
            assertEquals("ok", pong.text());
            socket.send(RawWebSocket.PING, true, SECRET.getBytes(StandardCharsets.UTF_8), true);
            assertEquals(1008, socket.readMessage().closeCode());
        }
        assertEquals("secret_leak", record("/echo/ping").get("reason").asText());
    }

    @Test
    void aMessageSentWithTheHandshakeAnswerArrives() throws Exception {
        try (RawWebSocket socket = intercepted("/hello")) {
            assertEquals("hello", socket.readMessage().text());
            socket.sendClose(1000);
            assertEquals(1000, socket.readMessage().closeCode());
        }
        assertEquals(1000, wss.closes.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void anUnmaskedClientFrameIsAProtocolErrorAndTheProxyStaysResponsive() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/unmasked")) {
            socket.send(RawWebSocket.TEXT, true, "naked".getBytes(StandardCharsets.UTF_8), false);
            assertEquals(1002, socket.readMessage().closeCode());
            assertTrue(socket.closedByPeer());
            // Meanwhile another client is served.
            try (RawWebSocket other = intercepted("/echo/meanwhile")) {
                other.sendText("still here");
                assertEquals("still here", other.readMessage().text());
            }
        }
        assertEquals(1001, wss.closes.poll(5, TimeUnit.SECONDS));
        JsonNode record = record("/echo/unmasked");
        assertEquals("bad_request", record.get("reason").asText());
        assertEquals(1002, record.get("websocket").get("close_code").asInt());
    }

    /** Frames RFC 6455 section 5 does not allow: each closes with 1002, nothing of it relayed. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"rsv1", "opcode3", "fragmented-ping", "long-ping", "continuation-first"})
    void aMalformedFrameIsAProtocolError(String shape) throws Exception {
        try (RawWebSocket socket = intercepted("/echo/malformed-" + shape)) {
            byte[] hi = "hi".getBytes(StandardCharsets.UTF_8);
            switch (shape) {
                case "rsv1" -> socket.send(0x40 | RawWebSocket.TEXT, true, hi, true); // permessage-deflate's bit, never negotiated
                case "opcode3" -> socket.send(3, true, hi, true); // reserved non-control opcode
                case "fragmented-ping" -> socket.send(RawWebSocket.PING, false, hi, true);
                case "long-ping" -> socket.send(RawWebSocket.PING, true, new byte[126], true); // control payloads are at most 125
                default -> socket.send(RawWebSocket.CONTINUATION, true, hi, true); // a continuation with nothing to continue
            }
            assertEquals(1002, socket.readMessage().closeCode());
        }
        assertEquals(1001, wss.closes.poll(5, TimeUnit.SECONDS), "the upstream was told the session ended");
        assertNull(wss.received.poll(), "nothing of the frame reached the upstream");
        assertEquals("bad_request", record("/echo/malformed-" + shape).get("reason").asText());
    }

    @Test
    void aMessageOverTheLimitClosesWith1009() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/big")) {
            socket.send(RawWebSocket.BINARY, false, new byte[3000], true);
            socket.send(RawWebSocket.CONTINUATION, true, new byte[3000], true);
            assertEquals(1009, socket.readMessage().closeCode());
        }
        assertNull(wss.received.poll(1, TimeUnit.SECONDS), "nothing of the message was relayed");
        assertEquals(1009, record("/echo/big").get("websocket").get("close_code").asInt());
    }

    @Test
    void textThatIsNotUtf8ClosesWith1007() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/utf8")) {
            socket.send(RawWebSocket.TEXT, true, new byte[] {'a', (byte) 0xc3, (byte) 0x28}, true);
            assertEquals(1007, socket.readMessage().closeCode());
        }
    }

    @Test
    void aClientThatDropsTheConnectionWithoutACloseIsRecordedAs1006() throws Exception {
        try (RawWebSocket socket = intercepted("/echo/drop")) {
            socket.sendText("bye");
            assertEquals("bye", socket.readMessage().text());
        }
        assertEquals(1001, wss.closes.poll(5, TimeUnit.SECONDS), "the upstream got a close frame for the vanished client");
        JsonNode record = record("/echo/drop");
        assertEquals("allow", record.get("decision").asText());
        assertEquals(1006, record.get("websocket").get("close_code").asInt());
        assertEquals("client", record.get("websocket").get("closed_by").asText());
    }

    @Test
    void anUpstreamWhose101DoesNotAnswerTheKeyIsA502() throws Exception {
        try (RawWebSocket socket = intercepted("/bad-accept")) {
            assertEquals(502, socket.status());
            assertEquals("upstream_unreachable", socket.header("X-Mesa-Egress-Reason"));
        }
    }

    @Test
    void plainWsThroughTheForwardProxyIsRelayedAndScanned() throws Exception {
        try (RawWebSocket socket = RawWebSocket.forward(proxy.port(), "127.0.0.1", ws.port(), "/echo/plain", "")) {
            assertEquals(101, socket.status());
            socket.sendText("over plain http");
            assertEquals("over plain http", socket.readMessage().text());
            socket.sendText("x " + OTHER_SECRET);
            assertEquals(1008, socket.readMessage().closeCode());
        }
        JsonNode record = record("/echo/plain");
        assertEquals("forward", record.get("mode").asText());
        assertEquals("secret_leak", record.get("reason").asText());
        assertEquals("over plain http", ws.received.poll(5, TimeUnit.SECONDS));
        assertNull(ws.received.poll(500, TimeUnit.MILLISECONDS));
    }

    @Test
    void anH2cUpgradeIsRefusedAndAnUnknownUpgradeGoesOutAsPlainHttp() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET http://127.0.0.1:" + ws.port() + "/ HTTP/1.1\r\nHost: 127.0.0.1:" + ws.port()
                    + "\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n").read();
            assertEquals(400, response.status());
            assertEquals("bad_request", response.header("X-Mesa-Egress-Reason"));
            assertTrue(response.body().contains("h2c"), response.body());
        }
        try (RawWebSocket socket = RawWebSocket.intercepted(proxy.port(), "localhost", wss.port(), "/echo/badkey", agentTls,
                "Sec-WebSocket-Key: second\r\n")) {
            assertEquals(400, socket.status());
        }
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response plain = raw.send("GET http://127.0.0.1:" + ws.port() + "/echo/notws HTTP/1.1\r\nHost: 127.0.0.1:" + ws.port()
                    + "\r\nConnection: Upgrade\r\nUpgrade: foo/2\r\n\r\n").read();
            assertEquals(400, plain.status(), "Netty's WebSocket server answers a plain GET 400: it never saw an upgrade");
            assertNull(plain.header("X-Mesa-Egress-Reason"), "the answer is the upstream's, not a refusal");
        }
        WebSocketUpstream.Handshake seen = ws.handshakes().stream().filter(h -> h.uri().equals("/echo/notws")).findFirst().orElseThrow();
        assertNull(seen.headers().get("upgrade"), "an upgrade the proxy does not relay is not asked of the upstream");
    }
}
