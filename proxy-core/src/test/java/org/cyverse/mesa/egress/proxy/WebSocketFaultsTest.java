package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.testkit.ConnectTunnel;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawWebSocket;
import org.cyverse.mesa.egress.testkit.WebSocketUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A WebSocket's limits and its upstream's faults: a quiet connection is closed at
 * {@code limits.websocket_idle_timeout}; an upstream that breaks the protocol (a masked frame)
 * gets the agent a 1014; an upstream that never answers a close frame does not hold the
 * connection open. The misbehaving upstream is a raw socket server that answers the handshake
 * correctly (RFC 6455 section 4.2.2) and then does what it is told.
 */
class WebSocketFaultsTest {

    private WebSocketUpstream echo;
    private RawUpstream raw;
    private ProxyFixture proxy;

    @BeforeEach
    void start() throws Exception {
        echo = new WebSocketUpstream(null);
        raw = new RawUpstream();
        proxy = ProxyFixture.start("profile: P2\n"
                + "allow:\n  - host: \"127.0.0.1\"\n    ports: [" + echo.port() + ", " + raw.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "limits:\n  websocket_idle_timeout: 1s\n");
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        echo.close();
        raw.close();
    }

    @Test
    void aQuietConnectionIsClosedAtTheIdleTimeout() throws Exception {
        try (RawWebSocket socket = RawWebSocket.forward(proxy.port(), "127.0.0.1", echo.port(), "/echo/idle", "")) {
            socket.sendText("one");
            assertEquals("one", socket.readMessage().text());
            long start = System.nanoTime();
            RawWebSocket.Frame close = socket.readMessage();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(1001, close.closeCode());
            assertTrue(close.closeReason().contains("idle"), close.closeReason());
            assertTrue(waited >= 700, "closed after " + waited + " ms");
        }
        assertEquals(1001, echo.closes.poll(5, TimeUnit.SECONDS));
        JsonNode record = proxy.awaitAuditRecord(r -> r.has("websocket"));
        assertEquals("allow", record.get("decision").asText());
        assertEquals("proxy", record.get("websocket").get("closed_by").asText());
        assertEquals(1, record.get("websocket").get("messages_up").asInt());
    }

    @Test
    void anUpstreamThatMasksItsFramesGetsTheAgentA1014() throws Exception {
        raw.behaviour.add("masked");
        try (RawWebSocket socket = RawWebSocket.forward(proxy.port(), "127.0.0.1", raw.port(), "/", "")) {
            assertEquals(101, socket.status());
            RawWebSocket.Frame close = socket.readMessage();
            assertEquals(1014, close.closeCode());
        }
        JsonNode record = proxy.awaitAuditRecord(r -> r.has("websocket"));
        assertEquals("upstream_unreachable", record.get("reason").asText());
        assertEquals(1014, record.get("websocket").get("close_code").asInt());
        assertEquals(1002, raw.closeCodes.poll(5, TimeUnit.SECONDS), "the upstream was told its frame broke the protocol");
    }

    @Test
    void anUpstreamThatNeverAnswersACloseDoesNotHoldTheConnection() throws Exception {
        raw.behaviour.add("silent");
        try (RawWebSocket socket = RawWebSocket.forward(proxy.port(), "127.0.0.1", raw.port(), "/", "")) {
            socket.sendClose(1000);
            RawWebSocket.Frame answer = socket.readMessage();
            assertEquals(1001, answer.closeCode(), "the proxy answers the close itself once the wait is over");
            assertTrue(socket.closedByPeer());
        }
        JsonNode record = proxy.awaitAuditRecord(r -> r.has("websocket"));
        assertEquals(1000, record.get("websocket").get("close_code").asInt());
        assertEquals("client", record.get("websocket").get("closed_by").asText());
        assertEquals(1000, raw.closeCodes.poll(5, TimeUnit.SECONDS), "the client's close was relayed");
    }

    /**
     * A WebSocket server on a raw socket: a correct handshake, then masked frames ({@code masked})
     * or no answer ({@code silent}).
     */
    private static final class RawUpstream implements AutoCloseable {
        final BlockingQueue<String> behaviour = new LinkedBlockingQueue<>();
        final BlockingQueue<Integer> closeCodes = new LinkedBlockingQueue<>();
        private final ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        private final Thread thread = new Thread(this::serve, "raw-ws-upstream");

        RawUpstream() throws IOException {
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void serve() {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    s.setSoTimeout(15_000);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    String head = ConnectTunnel.readHead(in);
                    String key = head.lines().filter(l -> l.toLowerCase().startsWith("sec-websocket-key:")).findFirst().orElseThrow()
                            .substring(18).trim();
                    String accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                            .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII)));
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                            + accept + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    String how = behaviour.poll(1, TimeUnit.SECONDS);
                    if ("masked".equals(how)) {
                        out.write(new byte[] {(byte) 0x81, (byte) 0x82, 1, 2, 3, 4, 'h' ^ 1, 'i' ^ 2}); // a server must not mask
                    }
                    out.flush();
                    // Record the close frames that come (masked, from the proxy), answer none.
                    while (true) {
                        int b0 = in.read();
                        if (b0 < 0) {
                            break;
                        }
                        int len = in.read() & 0x7f;
                        byte[] mask = in.readNBytes(4);
                        byte[] payload = in.readNBytes(len);
                        for (int i = 0; i < payload.length; i++) {
                            payload[i] ^= mask[i % 4];
                        }
                        if ((b0 & 0x0f) == 8 && payload.length >= 2) {
                            closeCodes.add(((payload[0] & 0xff) << 8) | (payload[1] & 0xff));
                        }
                    }
                } catch (Exception e) {
                    // the next connection, or the server closed
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
