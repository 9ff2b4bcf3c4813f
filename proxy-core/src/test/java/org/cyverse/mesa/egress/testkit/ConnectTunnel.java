package org.cyverse.mesa.egress.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A CONNECT through the proxy as a raw client makes it, for the test clients that speak what comes after by hand. */
public final class ConnectTunnel {

    private ConnectTunnel() {}

    /**
     * A socket to the proxy on {@code proxyPort}, tunnelled to {@code host:port} (the proxy answered 200).
     *
     * @param receiveBuffer the socket's receive buffer (small, to leave answers unread), or 0 for the default
     * @throws IOException the proxy refused the CONNECT (its answer in the message)
     */
    public static Socket open(int proxyPort, String host, int port, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", proxyPort));
        socket.setSoTimeout(15_000);
        socket.getOutputStream().write(("CONNECT " + host + ":" + port + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        String head = readHead(socket.getInputStream());
        if (!head.startsWith("HTTP/1.1 200")) {
            socket.close();
            throw new IOException("CONNECT refused: " + head);
        }
        return socket;
    }

    /** An HTTP head up to its empty line, read byte by byte so that nothing after it is taken. */
    public static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed in an HTTP head: " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
            matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : b == '\r' ? 1 : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }
}
