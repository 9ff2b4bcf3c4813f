package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.cyverse.mesa.egress.testkit.BodyUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request shapes a security review used to get a secret past the body scan, each through the
 * real proxy (raw sockets: no client library normalizes them) to an upstream that records every
 * byte it receives: chunked trailers, a second Content-Encoding field, base64 wrapped in lines
 * inside a JSON string or a form field.
 */
class BodyScanEvasionTest {

    static final String SECRET = "sk-llm-REAL-7c1d9e2f4a6b8c0d";
    static final String SENTINEL = "sk-mesa-sentinel";

    @TempDir
    static Path dir;
    private static ServerSocket upstream;
    private static final List<String> received = new CopyOnWriteArrayList<>();
    private static ProxyFixture proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"));
        Thread accept = new Thread(() -> {
            while (!upstream.isClosed()) {
                try {
                    Socket s = upstream.accept();
                    Thread serve = new Thread(() -> record(s));
                    serve.setDaemon(true);
                    serve.start();
                } catch (Exception e) {
                    return;
                }
            }
        });
        accept.setDaemon(true);
        accept.start();
        Files.writeString(dir.resolve("secrets.yaml"), "llm: \"" + SECRET + "\"\n");
        proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.getLocalPort() + "]\n"
                + "  - host: \"api.example\"\n    ports: [443]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: llm\n    hosts: [\"api.example\"]\n    sentinel: \"" + SENTINEL + "\"\n"
                + "    header: Authorization\n    secret: \"file:" + dir.resolve("secrets.yaml") + "#llm\"\n");
        for (int i = 0; i < 100 && proxy.admin("/readyz").statusCode() != 200; i++) {
            Thread.sleep(50);
        }
    }

    /** Records what one connection brought until it is quiet for 500 ms, then answers 200. */
    private static void record(Socket s) {
        try (s) {
            s.setSoTimeout(500);
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    all.write(buf, 0, n);
                }
            } catch (java.net.SocketTimeoutException quiet) {
                // the request is in
            }
            received.add(all.toString(StandardCharsets.ISO_8859_1));
            s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
        } catch (Exception e) {
            // the test looks at what was recorded
        }
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        upstream.close();
    }

    /** Sends one request through the proxy; returns the status line's first 12 bytes. */
    private static String send(String head, byte[] body) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            socket.setSoTimeout(5000);
            return new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
        }
    }

    private static String post(String path, int length, String... fields) {
        StringBuilder head = new StringBuilder("POST http://127.0.0.1:" + upstream.getLocalPort() + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (String field : fields) {
            head.append(field).append("\r\n");
        }
        return head.append("Content-Length: ").append(length).append("\r\n\r\n").toString();
    }

    private static boolean upstreamSaw(String path) throws InterruptedException {
        Thread.sleep(700);
        return received.stream().anyMatch(r -> r.contains(path));
    }

    @Test
    void aSecretInAChunkedTrailerNeverReachesTheUpstream() throws Exception {
        String head = "POST http://127.0.0.1:" + upstream.getLocalPort() + "/trailer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Transfer-Encoding: chunked\r\nTrailer: X-Key\r\n\r\n";
        byte[] body = ("5\r\nhello\r\n0\r\nX-Key: " + SECRET + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        // Trailer fields are judged as header fields (issue 17, item 3): the request is refused, none of it leaves.
        assertEquals("HTTP/1.1 403", send(head, body));
        assertFalse(upstreamSaw("/trailer"));
    }

    @Test
    void aSecondContentEncodingFieldIsDecodedToo() throws Exception {
        byte[] gz = BodyUpstream.encode(("k=" + SECRET).getBytes(StandardCharsets.UTF_8), "gzip");
        assertEquals("HTTP/1.1 403", send(post("/dup-ce", gz.length, "Content-Encoding: identity", "Content-Encoding: gzip"), gz));
        byte[] twice = BodyUpstream.encode(gz, "gzip");
        assertEquals("HTTP/1.1 403", send(post("/dup-gz", twice.length, "Content-Encoding: gzip", "Content-Encoding: gzip"), twice));
        assertFalse(upstreamSaw("/dup-"));
    }

    @Test
    void base64WrappedInLinesInsideAJsonStringOrAFormFieldIsFound() throws Exception {
        String env = "HOME=/home/agent\nPATH=/usr/bin:/bin\nLANG=C.UTF\nK=" + SENTINEL + "\nX=1\n";
        String wrapped = Base64.getMimeEncoder().encodeToString(env.getBytes(StandardCharsets.UTF_8));
        byte[] json = ("{\"file\":\"" + wrapped.replace("\r\n", "\\n") + "\"}").getBytes(StandardCharsets.UTF_8);
        assertEquals("HTTP/1.1 403", send(post("/b64-json", json.length, "Content-Type: application/json"), json));
        byte[] form = ("file=" + URLEncoder.encode(wrapped, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        assertEquals("HTTP/1.1 403", send(post("/b64-form", form.length, "Content-Type: application/x-www-form-urlencoded"), form));
        assertFalse(upstreamSaw("/b64-"));
    }

    @Test
    void plaintextAfterACompressedStreamIsFound() throws Exception {
        for (String coding : List.of("deflate", "br", "zstd", "gzip")) {
            byte[] body = BodyUpstream.encode("{}".getBytes(StandardCharsets.UTF_8), coding);
            byte[] tail = ("k=" + SECRET).getBytes(StandardCharsets.UTF_8);
            byte[] all = java.util.Arrays.copyOf(body, body.length + tail.length);
            System.arraycopy(tail, 0, all, body.length, tail.length);
            String status = send(post("/tail-" + coding, all.length, "Content-Encoding: " + coding), all);
            assertTrue(status.equals("HTTP/1.1 403") || status.equals("HTTP/1.1 400"), coding + ": " + status);
        }
        assertFalse(upstreamSaw("/tail-"));
    }

    @Test
    void bodiesHeldAcrossRequestsStayWithinTheirBudget() throws Exception {
        try (ProxyFixture small = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.getLocalPort() + "]\n"
                + "  - host: \"api.example\"\n    ports: [443]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\nlimits:\n  scan_hold_total_bytes: 65536\n"
                + "credentials:\n  - name: llm\n    hosts: [\"api.example\"]\n    sentinel: \"" + SENTINEL + "\"\n"
                + "    header: Authorization\n    secret: \"file:" + dir.resolve("secrets.yaml") + "#llm\"\n");
                Socket a = new Socket("127.0.0.1", small.port());
                Socket b = new Socket("127.0.0.1", small.port())) {
            for (int i = 0; i < 100 && small.admin("/readyz").statusCode() != 200; i++) {
                Thread.sleep(50);
            }
            String target = "http://127.0.0.1:" + upstream.getLocalPort();
            a.getOutputStream().write(("POST " + target + "/budget-a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 60000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            a.getOutputStream().write(new byte[50000]);
            a.getOutputStream().flush();
            Thread.sleep(300);
            b.getOutputStream().write(("POST " + target + "/budget-b HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 30000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            b.getOutputStream().write(new byte[20000]);
            b.getOutputStream().flush();
            b.setSoTimeout(5000);
            String refused = new String(b.getInputStream().readNBytes(300), StandardCharsets.US_ASCII);
            assertTrue(refused.startsWith("HTTP/1.1 503") && refused.contains("overloaded"), refused);
            a.getOutputStream().write(new byte[10000]);
            a.getOutputStream().flush();
            a.setSoTimeout(5000);
            assertEquals("HTTP/1.1 200", new String(a.getInputStream().readNBytes(12), StandardCharsets.US_ASCII));
        }
        assertTrue(upstreamSaw("/budget-a"));
        assertFalse(received.stream().anyMatch(r -> r.contains("/budget-b")), "the refused body never left");
    }

    @Test
    void aSecretEchoedInAnInterimResponseComesBackAsTheSentinel() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 4, InetAddress.getByName("127.0.0.1"))) {
            Thread server = new Thread(() -> {
                try (Socket s = echo.accept()) {
                    s.getInputStream().read(new byte[4096]);
                    s.getOutputStream().write(("HTTP/1.1 103 Early Hints\r\nLink: </style.css?k=" + SECRET + ">; rel=preload\r\n\r\n"
                            + "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 2\r\n\r\nok")
                            .getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    Thread.sleep(500);
                } catch (Exception e) {
                    // the client's assertions tell
                }
            });
            server.setDaemon(true);
            server.start();
            try (ProxyFixture p = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + echo.getLocalPort() + "]\n"
                    + "  - host: \"api.example\"\n    ports: [443]\n"
                    + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                    + "credentials:\n  - name: llm\n    hosts: [\"api.example\"]\n    sentinel: \"" + SENTINEL + "\"\n"
                    + "    header: Authorization\n    secret: \"file:" + dir.resolve("secrets.yaml") + "#llm\"\n");
                    Socket client = new Socket("127.0.0.1", p.port())) {
                for (int i = 0; i < 100 && p.admin("/readyz").statusCode() != 200; i++) {
                    Thread.sleep(50);
                }
                client.getOutputStream().write(("GET http://127.0.0.1:" + echo.getLocalPort() + "/page HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                client.setSoTimeout(5000);
                String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertTrue(answer.startsWith("HTTP/1.1 103"), answer);
                assertFalse(answer.contains(SECRET), answer);
                assertTrue(answer.contains("k=" + SENTINEL), answer);
                assertTrue(answer.contains("HTTP/1.1 200"), answer);
            }
        }
    }
}
