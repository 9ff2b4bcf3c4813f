package org.cyverse.mesa.egress.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP server on loopback that answers nothing and records every connection and byte it gets:
 * the witness that a refused request reached no upstream.
 */
public final class TouchRecorder implements AutoCloseable {

    private final ServerSocket server;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicLong bytes = new AtomicLong();
    private final Thread acceptor;

    public TouchRecorder(String address) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getByName(address));
        acceptor = new Thread(this::accept, "touch-recorder");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                connections.incrementAndGet();
                Thread reader = new Thread(() -> drain(s), "touch-recorder-read");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void drain(Socket s) {
        try (s; InputStream in = s.getInputStream()) {
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) > 0) {
                bytes.addAndGet(n);
            }
        } catch (IOException ignored) {
            // the peer went away
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    public int connections() {
        return connections.get();
    }

    public long bytes() {
        return bytes.get();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
