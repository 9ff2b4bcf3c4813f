package org.cyverse.mesa.egress.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * A real HTTPS upstream on loopback (the JDK's server) with its own certificate, recording what it
 * received: {@code /echo...} answers the request line and headers as text; {@code /reflect}
 * answers a response header and a body quoting the request's credentials, the body written in two
 * flushed pieces that split the value; {@code /big} streams a large body; {@code /sink} counts an
 * upload; {@code /hold...} waits (at most 20 s) until the test lets it go, then echoes;
 * {@code /events} streams two server-sent events, the second once the test lets it go.
 */
public final class HttpsUpstream implements AutoCloseable {

    /** What one request brought, and the client port of the connection it came on (one port, one connection). */
    public record Seen(String method, String uri, Map<String, List<String>> headers, long bodyBytes, String body, int clientPort) {
        public String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }
    }

    private final HttpsServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private volatile long bigSize = 1024;
    private final java.util.concurrent.Semaphore held = new java.util.concurrent.Semaphore(0);
    private final java.util.concurrent.Semaphore letGo = new java.util.concurrent.Semaphore(0);

    public HttpsUpstream(SSLContext context, String bind) throws IOException {
        server = HttpsServer.create(new InetSocketAddress(bind, 0), 16);
        server.setHttpsConfigurator(new HttpsConfigurator(context));
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public List<Seen> seen() {
        return seen;
    }

    /** The connections the requests came on so far. */
    public long connections() {
        return seen.stream().mapToInt(Seen::clientPort).distinct().count();
    }

    public void bigSize(long size) {
        this.bigSize = size;
    }

    /** Waits until a {@code /hold} request has arrived (and is waiting); false after {@code wait}. */
    public boolean awaitHeld(java.time.Duration wait) throws InterruptedException {
        return held.tryAcquire(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Lets one waiting {@code /hold} request answer. */
    public void letOneGo() {
        letGo.release();
    }

    private void handle(HttpExchange exchange) throws IOException {
        long body = 0;
        java.io.ByteArrayOutputStream head = new java.io.ByteArrayOutputStream();
        try (InputStream in = exchange.getRequestBody()) {
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                body += n;
                if (head.size() < 4096) {
                    head.write(buf, 0, Math.min(n, 4096 - head.size())); // the first 4 KiB, for assertions
                }
            }
        }
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(exchange.getRequestHeaders());
        seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().toString(), headers, body,
                head.toString(StandardCharsets.UTF_8), exchange.getRemoteAddress().getPort()));
        String path = exchange.getRequestURI().getPath();
        if (path.startsWith("/hold")) {
            held.release();
            try {
                letGo.tryAcquire(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (path.startsWith("/reflect")) {
            String key = String.valueOf(exchange.getRequestHeaders().getFirst("x-api-key"));
            exchange.getResponseHeaders().add("X-Echoed-Key", "you sent " + key);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            String text = "{\"error\": \"invalid key " + key + "\"}";
            int half = text.indexOf(key) + key.length() / 2;
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(text.substring(0, half).getBytes(StandardCharsets.UTF_8));
                out.flush();
                sleep();
                out.write(text.substring(half).getBytes(StandardCharsets.UTF_8));
            }
            return;
        }
        if (path.startsWith("/events")) {
            // Server-sent events: the first at once (quoting the request's x-api-key), the second
            // only once the test lets it go, so a client that reads the first has it from a stream.
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(("data: first " + exchange.getRequestHeaders().getFirst("x-api-key") + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                try {
                    letGo.tryAcquire(20, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                out.write("data: second\n\n".getBytes(StandardCharsets.UTF_8));
            }
            return;
        }
        if (path.startsWith("/big")) {
            exchange.getResponseHeaders().add("Content-Type", "application/octet-stream");
            exchange.sendResponseHeaders(200, bigSize);
            byte[] block = new byte[64 * 1024];
            try (OutputStream out = exchange.getResponseBody()) {
                for (long sent = 0; sent < bigSize; sent += block.length) {
                    out.write(block, 0, (int) Math.min(block.length, bigSize - sent));
                }
            }
            return;
        }
        StringBuilder text = new StringBuilder(exchange.getRequestMethod() + " " + exchange.getRequestURI() + "\n");
        headers.forEach((k, v) -> text.append(k).append(": ").append(String.join(",", v)).append('\n'));
        text.append("body-bytes: ").append(body).append('\n');
        byte[] answer = text.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "text/plain");
        exchange.sendResponseHeaders(200, answer.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
