package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicLong;
import org.cyverse.mesa.egress.testkit.MemoryWatch;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * 100 MiB bodies through the proxy, each way, against a reader slower than the writer: the
 * proxy's buffer memory must stay bounded (backpressure), and every byte must arrive.
 */
class StreamingTest {

    private static final long SIZE = 100L * 1024 * 1024;
    private static final long BOUND = 16L * 1024 * 1024;

    private HttpServer upstream;
    private ProxyFixture proxy;
    private final AtomicLong received = new AtomicLong();

    @BeforeEach
    void start() throws Exception {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.createContext("/sink", exchange -> {
            long n = 0;
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = exchange.getRequestBody()) {
                int r;
                int chunks = 0;
                while ((r = in.read(buf)) > 0) {
                    n += r;
                    if (++chunks % 256 == 0) {
                        pause(); // a slow upstream reader
                    }
                }
            }
            received.set(n);
            byte[] answer = Long.toString(n).getBytes();
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        upstream.createContext("/source", exchange -> {
            exchange.sendResponseHeaders(200, SIZE);
            byte[] block = new byte[64 * 1024];
            for (int i = 0; i < block.length; i++) {
                block[i] = (byte) i;
            }
            try (OutputStream out = exchange.getResponseBody()) {
                for (long sent = 0; sent < SIZE; sent += block.length) {
                    out.write(block);
                }
            }
        });
        upstream.start();
        proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.getAddress().getPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n");
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        upstream.stop(0);
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String url(String path) {
        return "http://127.0.0.1:" + upstream.getAddress().getPort() + path;
    }

    @Test
    void hundredMebibyteUploadStreamsWithBoundedMemory() throws Exception {
        try (MemoryWatch watch = new MemoryWatch()) {
            HttpResponse<String> response = proxy.client().send(HttpRequest.newBuilder(URI.create(url("/sink")))
                    .POST(HttpRequest.BodyPublishers.fromPublisher(
                            HttpRequest.BodyPublishers.ofInputStream(() -> new PatternStream(SIZE)), SIZE))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertEquals(Long.toString(SIZE), response.body());
            assertTrue(watch.peak() < BOUND, "proxy buffers peaked at " + watch.peak() + " bytes");
        }
        assertEquals(SIZE, received.get());
    }

    @Test
    void hundredMebibyteDownloadStreamsWithBoundedMemoryToASlowClient() throws Exception {
        try (MemoryWatch watch = new MemoryWatch()) {
            HttpResponse<InputStream> response = proxy.client().send(HttpRequest.newBuilder(URI.create(url("/source"))).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            long total = 0;
            int chunks = 0;
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = response.body()) {
                int r;
                while ((r = in.read(buf)) > 0) {
                    total += r;
                    if (++chunks % 256 == 0) {
                        pause(); // a slow client
                    }
                }
            }
            assertEquals(SIZE, total);
            assertTrue(watch.peak() < BOUND, "proxy buffers peaked at " + watch.peak() + " bytes");
        }
    }

    /** {@code size} bytes of a repeating pattern, generated, never held in memory. */
    private static final class PatternStream extends InputStream {
        private long left;

        PatternStream(long size) {
            this.left = size;
        }

        @Override
        public int read() {
            return left-- > 0 ? (int) (left & 0x7f) : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            java.util.Arrays.fill(b, off, off + n, (byte) 'x');
            left -= n;
            return n;
        }
    }
}
