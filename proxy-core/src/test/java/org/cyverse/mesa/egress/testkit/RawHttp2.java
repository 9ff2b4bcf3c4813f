package org.cyverse.mesa.egress.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * An HTTP/2 client that writes frames exactly as told (RFC 9113 section 4), for the attacks a
 * real client never makes: rapid resets, CONTINUATION without end, SETTINGS floods, HPACK bombs,
 * more streams than allowed. It reaches an intercepted host through CONNECT and TLS with ALPN
 * {@code h2}, sends the preface and an empty SETTINGS, and reads frames as they come.
 */
public final class RawHttp2 implements AutoCloseable {

    public static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9;
    public static final int END_STREAM = 0x1, END_HEADERS = 0x4, ACK = 0x1;

    /** A frame as read. */
    public record Frame(int type, int flags, int stream, byte[] payload) {
        /** A GOAWAY's or RST_STREAM's error code. */
        public long errorCode() {
            int at = type == GOAWAY ? 4 : 0;
            return ((payload[at] & 0xffL) << 24) | ((payload[at + 1] & 0xff) << 16) | ((payload[at + 2] & 0xff) << 8) | (payload[at + 3] & 0xff);
        }

        /** A GOAWAY's debug text. */
        public String debug() {
            return type == GOAWAY && payload.length > 8 ? new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8) : "";
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String authority;
    private final DefaultHttp2HeadersEncoder hpack = new DefaultHttp2HeadersEncoder();
    private final io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder unpack = new io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder(false);

    private RawHttp2(Socket socket, String authority) throws IOException {
        this.socket = socket;
        this.authority = authority;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new java.io.BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    }

    /**
     * {@code https://host:port} through the proxy, negotiated to HTTP/2.
     *
     * @param receiveBuffer the socket's receive buffer (small, to leave answers unread), or 0 for the default
     */
    public static RawHttp2 intercepted(int proxyPort, String host, int port, SSLContext tls, int receiveBuffer) throws IOException {
        Socket plain = ConnectTunnel.open(proxyPort, host, port, receiveBuffer);
        SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters parameters = s.getSSLParameters();
        parameters.setApplicationProtocols(new String[] {"h2"});
        s.setSSLParameters(parameters);
        s.startHandshake();
        if (!"h2".equals(s.getApplicationProtocol())) {
            s.close();
            throw new IOException("ALPN chose " + s.getApplicationProtocol() + ", not h2");
        }
        RawHttp2 client = new RawHttp2(s, host + ":" + port);
        client.out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        client.frame(SETTINGS, 0, 0, new byte[0]).flush();
        return client;
    }

    /** Writes one frame (not flushed: see {@link #flush}). */
    public RawHttp2 frame(int type, int flags, int stream, byte[] payload) throws IOException {
        byte[] header = {(byte) (payload.length >> 16), (byte) (payload.length >> 8), (byte) payload.length, (byte) type, (byte) flags,
                (byte) (stream >> 24), (byte) (stream >> 16), (byte) (stream >> 8), (byte) stream};
        out.write(header);
        out.write(payload);
        return this;
    }

    private long connectionWindow = 65_535;
    private final java.util.Map<Integer, Long> streamWindows = new java.util.HashMap<>();
    private final java.util.ArrayDeque<Frame> readAhead = new java.util.ArrayDeque<>();
    private final java.util.Set<Integer> reset = new java.util.HashSet<>();

    /**
     * Writes a DATA frame within the peer's flow-control windows (initial 65,535 each, as the
     * proxy announces): first reads what comes until WINDOW_UPDATEs make room (other frames are
     * kept for {@link #read}). Once the peer reset {@code stream}, writes nothing more on it.
     */
    public RawHttp2 dataWithinWindows(int flags, int stream, byte[] payload) throws IOException {
        flush();
        while (!reset.contains(stream) && (connectionWindow < payload.length || streamWindows.getOrDefault(stream, 65_535L) < payload.length)) {
            Frame f = readWire();
            if (f == null) {
                throw new EOFException("the connection ended while waiting for flow-control credit");
            }
            if (f.type() != WINDOW_UPDATE) {
                readAhead.add(f);
                if (f.type() == RST_STREAM) {
                    reset.add(f.stream());
                }
            } else {
                long increment = java.nio.ByteBuffer.wrap(f.payload()).getInt() & 0x7fffffffL;
                if (f.stream() == 0) {
                    connectionWindow += increment;
                } else {
                    streamWindows.merge(f.stream(), increment, Long::sum);
                }
            }
        }
        if (reset.contains(stream)) {
            return this;
        }
        connectionWindow -= payload.length;
        streamWindows.put(stream, streamWindows.getOrDefault(stream, 65_535L) - payload.length);
        return frame(DATA, flags, stream, payload);
    }

    public RawHttp2 flush() throws IOException {
        out.flush();
        return this;
    }

    /** The HPACK block of a request's pseudo-headers and {@code extra} name, value pairs (one encoder per connection, as HPACK needs). */
    public byte[] requestBlock(String method, String path, String... extra) throws Http2Exception {
        Http2Headers headers = new DefaultHttp2Headers().method(method).scheme("https").authority(authority).path(path);
        for (int i = 0; i + 1 < extra.length; i += 2) {
            headers.add(extra[i], extra[i + 1]);
        }
        ByteBuf block = Unpooled.buffer();
        try {
            hpack.encodeHeaders(0, headers, block);
            return ByteBufUtil.getBytes(block);
        } finally {
            block.release();
        }
    }

    /** The fields of a HEADERS frame the proxy sent (without padding or priority: the proxy sends neither). */
    public Http2Headers decode(Frame headers) throws Http2Exception {
        ByteBuf block = Unpooled.wrappedBuffer(headers.payload());
        try {
            return unpack.decodeHeaders(headers.stream(), block);
        } finally {
            block.release();
        }
    }

    /** Reads the next frame (first those read ahead while waiting for flow-control credit); {@code null} at the end of the stream. */
    public Frame read() throws IOException {
        Frame ahead = readAhead.poll();
        return ahead != null ? ahead : readWire();
    }

    private Frame readWire() throws IOException {
        byte[] header = new byte[9];
        try {
            in.readFully(header);
        } catch (EOFException e) {
            return null;
        }
        int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
        byte[] payload = new byte[length];
        in.readFully(payload);
        int stream = ((header[5] & 0x7f) << 24) | ((header[6] & 0xff) << 16) | ((header[7] & 0xff) << 8) | (header[8] & 0xff);
        return new Frame(header[3] & 0xff, header[4] & 0xff, stream, payload);
    }

    /** Reads until a frame of {@code type} (on {@code stream}, or any stream when negative); {@code null} when the connection ends first. */
    public Frame readUntil(int type, int stream) throws IOException {
        try {
            for (Frame f = read(); f != null; f = read()) {
                if (f.type() == type && (stream < 0 || f.stream() == stream)) {
                    return f;
                }
            }
        } catch (SocketTimeoutException | java.net.SocketException e) {
            return null;
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
