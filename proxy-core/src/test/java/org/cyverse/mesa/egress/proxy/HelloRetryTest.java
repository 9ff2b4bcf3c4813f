package org.cyverse.mesa.egress.proxy;

import static org.cyverse.mesa.egress.testkit.ClientHellos.concat;
import static org.cyverse.mesa.egress.testkit.ClientHellos.record;
import static org.cyverse.mesa.egress.testkit.ClientHellos.withServerName;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The second ClientHello of an opaque tunnel, after the server answered the first with a TLS 1.3
 * HelloRetryRequest (the reviewer's follow-up to issue 17, item 1): it must name the server the
 * first named, or the tunnel closes before the upstream gets it. A real OpenSSL client and server
 * that go through a retry still connect.
 */
class HelloRetryTest {

    /** The ServerHello random of a HelloRetryRequest (RFC 8446 section 4.1.3). */
    private static final byte[] RETRY_RANDOM = HexFormat.of().parseHex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c");

    @TempDir
    static Path dir;

    private static ServerSocket retrying;
    /** What the retrying server got after it sent its HelloRetryRequest, per connection: the bytes until EOF. */
    private static final LinkedBlockingQueue<byte[]> AFTER_RETRY = new LinkedBlockingQueue<>();
    private static ProxyFixture proxy;
    private static int opensslPort;

    @BeforeAll
    static void start() throws Exception {
        retrying = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!retrying.isClosed()) {
                try (Socket socket = retrying.accept()) {
                    socket.setSoTimeout(3000);
                    InputStream in = socket.getInputStream();
                    byte[] first = readRecord(in); // the first ClientHello
                    ByteArrayOutputStream rest = new ByteArrayOutputStream();
                    try {
                        if (new String(first, StandardCharsets.ISO_8859_1).contains("ccs.test")) {
                            // A change_cipher_spec first, which a TLS 1.3 client drops unread (RFC 8446 section 5).
                            socket.getOutputStream().write(record(20, new byte[] {1}));
                        }
                        socket.getOutputStream().write(helloRetryRequest());
                        socket.getOutputStream().flush();
                        byte[] buf = new byte[4096];
                        int n;
                        while ((n = in.read(buf)) > 0) {
                            rest.write(buf, 0, n);
                        }
                    } catch (IOException e) {
                        // a reset or the timeout: what came is what counts
                    }
                    AFTER_RETRY.add(rest.toByteArray());
                } catch (IOException e) {
                    // closed
                }
            }
        }, "retrying-server");
        acceptor.setDaemon(true);
        acceptor.start();
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            opensslPort = free.getLocalPort();
        }
        proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: front.test\n    ports: [" + retrying.getLocalPort() + "]\n"
                + "  - host: ccs.test\n    ports: [" + retrying.getLocalPort() + "]\n"
                + "  - host: retry.test\n    ports: [" + opensslPort + "]\n"
                + "deny:\n  - host: hidden.test\nnetwork:\n  allow_private: [\"127.0.0.1/32\"]\n",
                host -> List.of(InetAddress.getByName("127.0.0.1")));
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        retrying.close();
    }

    private static byte[] readRecord(InputStream in) throws IOException {
        byte[] header = in.readNBytes(5);
        return in.readNBytes((header[3] & 0xff) << 8 | header[4] & 0xff);
    }

    /** A ServerHello whose random marks it a HelloRetryRequest: what the proxy reads of it. */
    private static byte[] helloRetryRequest() {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(3);
        body.write(3); // legacy_version TLS 1.2
        body.writeBytes(RETRY_RANDOM);
        body.write(0); // legacy_session_id_echo
        body.write(0x13);
        body.write(0x01); // TLS_AES_128_GCM_SHA256
        body.write(0); // compression
        body.write(0);
        body.write(0); // no extensions (enough for what the proxy reads)
        byte[] b = body.toByteArray();
        return record(22, concat(new byte[] {2, 0, 0, (byte) b.length}, b));
    }

    /** Opens a tunnel to the retrying server, sends {@code first}, waits for the retry, sends {@code second}; whether the proxy closed. */
    private static boolean tunnel(String target, byte[] first, byte[] second) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            String authority = target + ":" + retrying.getLocalPort();
            assertEquals(200, raw.send("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n").read().status());
            raw.send(first);
            if (second == null) {
                return raw.closedByPeer(3000);
            }
            byte[] expected = target.equals("ccs.test") ? concat(record(20, new byte[] {1}), helloRetryRequest()) : helloRetryRequest();
            byte[] retry = raw.socket().getInputStream().readNBytes(expected.length);
            assertArrayEquals(expected, retry, "the client got the retry request");
            raw.send(second);
            boolean closed = raw.closedByPeer(1500);
            raw.socket().shutdownOutput();
            return closed;
        }
    }

    @Test
    void aSecondClientHelloNamingTheSameServerIsRelayed() throws Exception {
        byte[] second = concat(record(20, new byte[] {1}), withServerName("front.test"));
        assertEquals(false, tunnel("front.test", withServerName("front.test"), second));
        assertArrayEquals(second, AFTER_RETRY.poll(5, TimeUnit.SECONDS), "change_cipher_spec and the second hello reached the server");
    }

    @Test
    void aSecondClientHelloNamingAnotherServerClosesTheTunnelBeforeTheServerGetsIt() throws Exception {
        byte[] second = concat(record(20, new byte[] {1}), withServerName("hidden.test"));
        assertTrue(tunnel("front.test", withServerName("front.test"), second), "the proxy closed the tunnel");
        byte[] got = AFTER_RETRY.poll(5, TimeUnit.SECONDS);
        assertEquals(0, got.length, "the server got none of the second hello: " + got.length + " bytes");
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("host_mismatch")
                && r.get("host").asText().equals("front.test"));
        assertEquals(421, record.get("status").asInt());
        assertEquals("tunnel", record.get("mode").asText());
    }

    @Test
    void aChangeCipherSpecBeforeTheRetryDoesNotEndTheCheck() throws Exception {
        byte[] second = withServerName("hidden.test");
        assertTrue(tunnel("ccs.test", withServerName("ccs.test"), second), "the proxy closed the tunnel");
        assertEquals(0, AFTER_RETRY.poll(5, TimeUnit.SECONDS).length, "the server got none of the second hello");
    }

    @Test
    void aSecondClientHelloThatDoesNotParseClosesTheTunnel() throws Exception {
        byte[] second = record(22, new byte[] {1, 0, 0, 9, 3, 3, 0, 0, 0, 0, 0, 0, 0});
        assertTrue(tunnel("front.test", withServerName("front.test"), second));
        assertEquals(0, AFTER_RETRY.poll(5, TimeUnit.SECONDS).length);
    }

    @Test
    void aHandshakeRecordBeforeTheServersHelloClosesTheTunnel() throws Exception {
        // Both hellos at once: the server would read the second as the answer to its retry.
        assertTrue(tunnel("front.test", concat(withServerName("front.test"), withServerName("hidden.test")), null));
        assertEquals(0, AFTER_RETRY.poll(5, TimeUnit.SECONDS).length, "the server got the first hello alone");
        proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("host_mismatch") && r.get("mode").asText().equals("tunnel"));
    }

    /**
     * OpenSSL's client offers an X25519 key share; the server takes only P-256 and so asks again:
     * the retry goes through the proxy and the handshake completes, as it does without one.
     */
    @Test
    void realOpensslThroughARetryStillConnects() throws Exception {
        Path key = dir.resolve("key.pem");
        Path cert = dir.resolve("cert.pem");
        run(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=retry.test",
                "-addext", "subjectAltName=DNS:retry.test", "-days", "1", "-keyout", key.toString(), "-out", cert.toString()), "");
        int port = opensslPort;
        Process server = new ProcessBuilder("openssl", "s_server", "-accept", "127.0.0.1:" + port, "-cert", cert.toString(), "-key",
                key.toString(), "-tls1_3", "-groups", "P-256", "-www").redirectErrorStream(true).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!listening(port)) {
                assertTrue(System.nanoTime() < deadline, "openssl s_server did not start");
                Thread.sleep(50);
            }
            String out = run(List.of("openssl", "s_client", "-connect", "retry.test:" + port, "-proxy", "127.0.0.1:" + proxy.port(),
                    "-servername", "retry.test", "-tls1_3", "-groups", "X25519:P-256", "-CAfile", cert.toString(), "-verify_return_error",
                    "-ign_eof"), "GET / HTTP/1.0\r\n\r\n");
            assertTrue(out.contains("Server Temp Key: ECDH, prime256v1"), "the server asked for P-256 after the X25519 share: " + out);
            assertTrue(out.contains("Verify return code: 0 (ok)"), out);
            assertTrue(out.contains("HTTP/1.0 200 ok"), "the request went through the tunnel: " + out);
        } finally {
            server.destroy();
            server.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String run(List<String> command, String input) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().write(input.getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "timed out: " + command);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
