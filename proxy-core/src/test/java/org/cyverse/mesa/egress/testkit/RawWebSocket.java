package org.cyverse.mesa.egress.testkit;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A WebSocket client written for tests that must send what real clients will not (unmasked
 * frames, invalid UTF-8, a message split anywhere, a connection dropped without a close): the
 * opening handshake through the proxy, as a plain {@code http://} proxy request or inside an
 * intercepted CONNECT, then frames exactly as given (RFC 6455 section 5.2).
 */
public final class RawWebSocket implements AutoCloseable {

    public static final int TEXT = 1, BINARY = 2, CONTINUATION = 0, CLOSE = 8, PING = 9, PONG = 10;

    /** A frame as read. */
    public record Frame(int opcode, boolean fin, byte[] payload) {
        public String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        /** A close frame's code, or -1. */
        public int closeCode() {
            return payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : -1;
        }

        public String closeReason() {
            return payload.length > 2 ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8) : "";
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    /** The handshake's answer: status line and fields, as text. */
    public final String responseHead;
    private final SecureRandom random = new SecureRandom();

    private RawWebSocket(Socket socket, String target, String host, String extraHeaders) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        byte[] key = new byte[16];
        random.nextBytes(key);
        out.write(("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" + extraHeaders + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        this.responseHead = ConnectTunnel.readHead(in);
    }

    /** {@code ws://host:port/path} as a plain proxy request (absolute-form {@code http://} target). */
    public static RawWebSocket forward(int proxyPort, String host, int port, String path, String extraHeaders) throws IOException {
        return new RawWebSocket(new Socket("127.0.0.1", proxyPort), "http://" + host + ":" + port + path, host + ":" + port, extraHeaders);
    }

    /** {@code wss://host:port/path} inside a CONNECT the proxy intercepts, trusting {@code tls}'s anchors. */
    public static RawWebSocket intercepted(int proxyPort, String host, int port, String path, SSLContext tls, String extraHeaders)
            throws IOException {
        Socket plain = ConnectTunnel.open(proxyPort, host, port, 0);
        SSLSocket tlsSocket = (SSLSocket) tls.getSocketFactory().createSocket(plain, host, port, true);
        tlsSocket.startHandshake();
        return new RawWebSocket(tlsSocket, path, host + ":" + port, extraHeaders);
    }

    /** The handshake answer's status code. */
    public int status() {
        return Integer.parseInt(responseHead.substring(9, 12));
    }

    public String header(String name) {
        for (String line : responseHead.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
                return line.substring(colon + 1).trim();
            }
        }
        return null;
    }

    /** Sends one frame; {@code mask} as a client must (false: the protocol error a proxy must catch). */
    public RawWebSocket send(int opcode, boolean fin, byte[] payload, boolean mask) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.write((fin ? 0x80 : 0) | opcode);
        int maskBit = mask ? 0x80 : 0;
        if (payload.length < 126) {
            frame.write(maskBit | payload.length);
        } else if (payload.length < 65536) {
            frame.write(maskBit | 126);
            frame.write(payload.length >> 8);
            frame.write(payload.length & 0xff);
        } else {
            frame.write(maskBit | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                frame.write((int) ((long) payload.length >> shift) & 0xff);
            }
        }
        byte[] body = payload.clone();
        if (mask) {
            byte[] key = new byte[4];
            random.nextBytes(key);
            frame.write(key);
            for (int i = 0; i < body.length; i++) {
                body[i] ^= key[i % 4];
            }
        }
        frame.write(body);
        out.write(frame.toByteArray());
        out.flush();
        return this;
    }

    public RawWebSocket sendText(String text) throws IOException {
        return send(TEXT, true, text.getBytes(StandardCharsets.UTF_8), true);
    }

    /** A close frame with {@code code}. */
    public RawWebSocket sendClose(int code) throws IOException {
        return send(CLOSE, true, new byte[] {(byte) (code >> 8), (byte) code}, true);
    }

    /** The next frame from the proxy (which must not mask). */
    public Frame read() throws IOException {
        int b0 = in.readUnsignedByte();
        int b1 = in.readUnsignedByte();
        if ((b1 & 0x80) != 0) {
            throw new IOException("a server frame was masked");
        }
        long len = b1 & 0x7f;
        if (len == 126) {
            len = in.readUnsignedShort();
        } else if (len == 127) {
            len = in.readLong();
        }
        byte[] payload = new byte[(int) len];
        in.readFully(payload);
        return new Frame(b0 & 0x0f, (b0 & 0x80) != 0, payload);
    }

    /** The next whole text or binary message (fragments joined; pings and pongs skipped), or a close frame. */
    public Frame readMessage() throws IOException {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        int opcode = -1;
        while (true) {
            Frame f = read();
            if (f.opcode() == CLOSE) {
                return f;
            }
            if (f.opcode() == PING || f.opcode() == PONG) {
                continue;
            }
            if (opcode < 0) {
                opcode = f.opcode();
            }
            message.write(f.payload());
            if (f.fin()) {
                return new Frame(opcode, true, message.toByteArray());
            }
        }
    }

    /** Whether the proxy closed the connection (end of stream) within the socket timeout. */
    public boolean closedByPeer() throws IOException {
        try {
            while (in.read() >= 0) {
                // drain what is left
            }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
