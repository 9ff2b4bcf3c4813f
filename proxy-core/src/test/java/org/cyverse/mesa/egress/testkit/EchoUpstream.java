package org.cyverse.mesa.egress.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;

/**
 * An HTTPS (or plain http) upstream on loopback that echoes every request byte for byte, as debug endpoints and
 * error pages do: the response's body is the raw request (head, body as framed, trailers), its
 * {@code Location} and {@code X-Echo-Uri} headers are the raw request target, and its trailer
 * section repeats the request's {@code Authorization} and target. A target under {@code /slow} is
 * answered after 1.5 s. Written on raw sockets because
 * the JDK's server can neither show a request's framing nor send trailers (nor read a request's).
 */
public final class EchoUpstream implements AutoCloseable {

    /** One request as it arrived: the head (to the empty line) and the body bytes as framed on the wire. */
    public record Seen(String head, String body) {
        public String target() {
            return head.split(" ", 3)[1];
        }
    }

    private final ServerSocket server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    /** @param context the server's TLS, or {@code null} for plain http */
    public EchoUpstream(SSLContext context) throws IOException {
        server = context == null ? new ServerSocket(0, 50, InetAddress.getLoopbackAddress())
                : context.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::accept, "echo-upstream");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread t = new Thread(() -> serve(socket), "echo-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setSoTimeout(20_000);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            while (true) {
                String head = RawMessages.head(in);
                if (head == null) {
                    return;
                }
                String body = RawMessages.body(in, head);
                seen.add(new Seen(head, body));
                String target = head.split(" ", 3)[1];
                if (target.startsWith("/slow")) {
                    sleep(1500); // an answer that comes after other requests were sent
                }
                String auth = RawMessages.field(head, "authorization");
                byte[] echo = (head + "\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1);
                String response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
                        + "Trailer: X-Echo-Auth, X-Echo-Uri\r\nLocation: " + target + "\r\nX-Echo-Uri: " + target + "\r\n\r\n"
                        + Integer.toHexString(echo.length) + "\r\n";
                out.write(response.getBytes(StandardCharsets.ISO_8859_1));
                out.write(echo);
                out.write(("\r\n0\r\nX-Echo-Auth: " + auth + "\r\nX-Echo-Uri: " + target + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
        } catch (IOException e) {
            // the proxy closed or reset the connection
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    /** Reading HTTP/1.1 messages raw, framing and all. */
    public static final class RawMessages {
        private RawMessages() {}

        /** The head up to (without) the empty line, or {@code null} at the end of the stream. */
        public static String head(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int state = 0;
            while (state < 4) {
                int b = in.read();
                if (b < 0) {
                    return head.size() == 0 ? null : head.toString(StandardCharsets.ISO_8859_1);
                }
                head.write(b);
                state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
            }
            String text = head.toString(StandardCharsets.ISO_8859_1);
            return text.substring(0, text.length() - 4);
        }

        /** The body after {@code head} exactly as framed: chunk sizes, data, last chunk and trailer section. */
        public static String body(InputStream in, String head) throws IOException {
            String te = field(head, "transfer-encoding");
            if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
                ByteArrayOutputStream raw = new ByteArrayOutputStream();
                while (true) {
                    String size = line(in, raw);
                    int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                    if (n == 0) {
                        while (!line(in, raw).isEmpty()) {
                            // trailer fields, kept in raw
                        }
                        return raw.toString(StandardCharsets.ISO_8859_1);
                    }
                    raw.write(in.readNBytes(n));
                    line(in, raw);
                }
            }
            String length = field(head, "content-length");
            return length == null ? "" : new String(in.readNBytes(Integer.parseInt(length.trim())), StandardCharsets.ISO_8859_1);
        }

        /** The first value of field {@code name} in {@code head}, or {@code null}. */
        public static String field(String head, String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }

        private static String line(InputStream in, ByteArrayOutputStream raw) throws IOException {
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0 && b != '\n') {
                raw.write(b);
                if (b != '\r') {
                    line.append((char) b);
                }
            }
            if (b < 0) {
                throw new IOException("the stream ended inside a chunked body");
            }
            raw.write(b);
            return line.toString();
        }
    }
}
