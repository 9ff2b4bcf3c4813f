package org.cyverse.mesa.egress.testkit;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.SSLContext;

/**
 * A real upstream on loopback (the JDK's server, HTTP or HTTPS) for body tests, recording every
 * request whose head arrived and whether its body arrived complete:
 * <ul>
 *   <li>{@code /upload} reads the body and answers its length;
 *   <li>{@code /echo-key?coding=C} answers a JSON body quoting the request's {@code Authorization}
 *       header (the injected secret), in content coding C ({@code identity}, {@code gzip},
 *       {@code deflate}, {@code br}, {@code zstd});
 *   <li>{@code /sse?coding=C} streams three server-sent events 400 ms apart, each quoting the key;
 *   <li>{@code /download?size=N} streams N bytes of text quoting the key once in every 64 KiB.
 * </ul>
 */
public final class BodyUpstream implements AutoCloseable {

    /** One request: its head, and what of its body arrived. */
    public static final class Seen {
        public final String method;
        public final String path;
        public final Map<String, List<String>> headers;
        public volatile long bodyBytes;
        public volatile boolean complete;
        public volatile String body = "";

        Seen(String method, String path, Map<String, List<String>> headers) {
            this.method = method;
            this.path = path;
            this.headers = headers;
        }

        public String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }
    }

    private final HttpServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    /** @param tls the server's TLS context, or {@code null} for plain http */
    public BodyUpstream(SSLContext tls) throws IOException {
        if (tls == null) {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        } else {
            HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
        }
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

    private void handle(HttpExchange exchange) throws IOException {
        Seen s = new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), new HashMap<>(exchange.getRequestHeaders()));
        seen.add(s);
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        try (InputStream in = exchange.getRequestBody()) {
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                s.bodyBytes += n;
                if (head.size() < 8192) {
                    head.write(buf, 0, Math.min(n, 8192 - head.size()));
                }
            }
            s.complete = true;
        } catch (IOException e) {
            exchange.close(); // the body was cut off: the request never completed here
            return;
        } finally {
            s.body = head.toString(StandardCharsets.UTF_8);
        }
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        String key = String.valueOf(s.header("Authorization"));
        String coding = query.getOrDefault("coding", "identity");
        switch (s.path) {
            case "/v1/echo-key", "/echo-key" -> {
                byte[] body = encode(("{\"error\":\"invalid key: " + key + "\"}").getBytes(StandardCharsets.UTF_8), coding);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                if (!coding.equals("identity")) {
                    exchange.getResponseHeaders().add("Content-Encoding", coding);
                }
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            case "/v1/sse" -> {
                exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                if (coding.equals("gzip")) {
                    exchange.getResponseHeaders().add("Content-Encoding", "gzip");
                }
                exchange.sendResponseHeaders(200, 0);
                try (OutputStream raw = exchange.getResponseBody();
                        OutputStream out = coding.equals("gzip") ? new GZIPOutputStream(raw, true) : raw) {
                    for (int i = 0; i < 3; i++) {
                        out.write(("data: {\"n\":" + i + ",\"key\":\"" + key + "\"}\n\n").getBytes(StandardCharsets.UTF_8));
                        out.flush();
                        sleep(400);
                    }
                }
            }
            case "/v1/download" -> {
                long size = Long.parseLong(query.getOrDefault("size", "1024"));
                exchange.getResponseHeaders().add("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, size);
                byte[] block = new byte[64 * 1024];
                java.util.Arrays.fill(block, (byte) 'd');
                byte[] k = key.getBytes(StandardCharsets.UTF_8);
                System.arraycopy(k, 0, block, 100, Math.min(k.length, block.length - 100));
                try (OutputStream out = exchange.getResponseBody()) {
                    for (long sent = 0; sent < size; sent += block.length) {
                        out.write(block, 0, (int) Math.min(block.length, size - sent));
                    }
                }
            }
            default -> {
                byte[] answer = ("{\"bytes\":" + s.bodyBytes + "}").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, answer.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        }
    }

    /** {@code body} in content coding {@code coding}. */
    public static byte[] encode(byte[] body, String coding) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        switch (coding) {
            case "identity" -> {
                return body;
            }
            case "gzip" -> {
                try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                    gz.write(body);
                }
            }
            case "deflate" -> {
                try (DeflaterOutputStream z = new DeflaterOutputStream(out)) {
                    z.write(body);
                }
            }
            case "br" -> {
                Brotli4jLoader.ensureAvailability();
                return Encoder.compress(body);
            }
            case "zstd" -> {
                return Zstd.compress(body);
            }
            default -> throw new IllegalArgumentException(coding);
        }
        return out.toByteArray();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    q.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return q;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
