package org.cyverse.mesa.egress.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A minimal blocking HTTPS/1.1 client holding one kept-alive connection to 127.0.0.1, directly or
 * through a CONNECT tunnel of the proxy. It verifies the server's certificate and host name as a
 * real client does, and reads bodies framed by Content-Length or chunked (the proxy re-chunks a
 * body it scrubs): less client overhead than the JDK HttpClient, so the proxy's share of each
 * round trip shows.
 */
public final class KeepAliveHttpsClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] request;
    private final String target;
    private final String authority;
    private long lastBodyBytes;

    /** @param target the request target: a path (origin-form), or an absolute URI for a forward proxy */
    private KeepAliveHttpsClient(Socket socket, String authority, String target) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        this.out = socket.getOutputStream();
        this.target = target;
        this.authority = authority;
        this.request = ("GET " + target + " HTTP/1.1\r\nHost: " + authority + "\r\nUser-Agent: mesa-egress-bench\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Plain http through the forward proxy on 127.0.0.1:{@code proxyPort}: absolute-form GETs of
     * {@code http://host:port/path} on one kept-alive connection.
     */
    public static KeepAliveHttpsClient openForward(int proxyPort, String host, int port, String path) throws IOException {
        Socket plain = new Socket();
        try {
            plain.setTcpNoDelay(true);
            plain.setSoTimeout(10_000);
            plain.connect(new InetSocketAddress("127.0.0.1", proxyPort), 5_000);
            String authority = host + ":" + port;
            return new KeepAliveHttpsClient(plain, authority, "http://" + authority + path);
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    /**
     * Connects to the upstream on 127.0.0.1:{@code port} and speaks TLS to it as {@code host}
     * (SNI and certificate check): {@code host} is never resolved.
     *
     * @param proxyPort the proxy's port on 127.0.0.1 to CONNECT through, or 0 for a direct connection
     */
    public static KeepAliveHttpsClient open(SSLContext trust, int proxyPort, String host, int port, String path)
            throws IOException {
        String authority = host + ":" + port;
        Socket plain = new Socket();
        try {
            plain.setTcpNoDelay(true);
            plain.setSoTimeout(10_000);
            plain.connect(new InetSocketAddress("127.0.0.1", proxyPort == 0 ? port : proxyPort), 5_000);
            if (proxyPort != 0) {
                connect(plain, authority);
            }
            SSLSocket tls = (SSLSocket) trust.getSocketFactory().createSocket(plain, host, port, true);
            SSLParameters params = tls.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(params);
            tls.startHandshake();
            return new KeepAliveHttpsClient(tls, authority, path);
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    private static void connect(Socket plain, String authority) throws IOException {
        OutputStream o = plain.getOutputStream();
        o.write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        o.flush();
        // Unbuffered: not one byte of the TLS stream behind the answer may be read here.
        Head head = Head.read(plain.getInputStream());
        if (head.status != 200) {
            throw new IOException("CONNECT " + authority + " answered " + head.text);
        }
    }

    /** Sends one GET, reads the whole response, and returns its status; the body is skipped. */
    public int get() throws IOException {
        out.write(request);
        out.flush();
        return response();
    }

    /** A POST of {@code body} (with its Content-Length and type), read as {@link #get} reads. */
    public int post(byte[] body, String contentType) throws IOException {
        out.write(("POST " + target + " HTTP/1.1\r\nHost: " + authority + "\r\nUser-Agent: mesa-egress-bench\r\nContent-Type: "
                + contentType + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return response();
    }

    private int response() throws IOException {
        Head head = Head.read(in);
        if (head.chunked) {
            lastBodyBytes = skipChunks();
        } else if (head.contentLength >= 0) {
            in.skipNBytes(head.contentLength);
            lastBodyBytes = head.contentLength;
        } else {
            throw new IOException("a response without framing for a kept-alive connection: " + head.text);
        }
        return head.status;
    }

    /** RFC 9112 section 7.1: size lines in hex (extensions ignored), then trailers up to an empty line. */
    private long skipChunks() throws IOException {
        long total = 0;
        while (true) {
            String sizeLine = line();
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                while (!line().isEmpty()) {
                    // trailer fields
                }
                return total;
            }
            in.skipNBytes(size);
            total += size;
            line();
        }
    }

    private String line() throws IOException {
        StringBuilder text = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("connection closed inside a chunked body");
            }
            if (b != '\r') {
                text.append((char) b);
            }
        }
        return text.toString();
    }

    /** The body length of the last response. */
    public long lastBodyBytes() {
        return lastBodyBytes;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** A response head: status, framing (Content-Length, -1 when absent) and its text for error messages. */
    private record Head(int status, long contentLength, boolean chunked, String text) {
        static Head read(InputStream in) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            int state = 0;
            while (state < 4) {
                int b = in.read();
                if (b < 0) {
                    throw new EOFException("connection closed after " + bytes.size() + " bytes of a response head");
                }
                bytes.write(b);
                state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
            }
            String text = bytes.toString(StandardCharsets.ISO_8859_1);
            String[] lines = text.split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            long length = -1;
            boolean chunked = false;
            for (String line : lines) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(line.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:")) {
                    chunked = lower.substring(18).trim().endsWith("chunked");
                }
            }
            return new Head(status, length, chunked, text.trim());
        }
    }
}
