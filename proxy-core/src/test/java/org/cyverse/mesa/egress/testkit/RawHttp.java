package org.cyverse.mesa.egress.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A raw socket client for what well-behaved clients will not send: malformed heads, smuggling
 * shapes, slow writers. Reads responses framed by Content-Length (the proxy's own answers).
 */
public final class RawHttp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    public Socket socket() {
        return socket;
    }

    /** Reads one response whose body is framed by Content-Length (or empty). */
    public Response read() throws IOException {
        String head = readHead();
        String[] lines = head.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = readChunked();
        } else {
            body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
        }
        return new Response(lines[0], status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private byte[] readChunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = readLine();
            int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
            if (size == 0) {
                while (!readLine().isEmpty()) {
                    // trailers
                }
                return body.toByteArray();
            }
            body.write(in.readNBytes(size));
            readLine();
        }
    }

    private String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + head.size() + " bytes: " + head);
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        return text.substring(0, text.length() - 4);
    }

    /** Whether the proxy closed the connection (EOF within the timeout). */
    public boolean closedByPeer(int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** A response as read off the wire. */
    public record Response(String statusLine, int status, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }
}
