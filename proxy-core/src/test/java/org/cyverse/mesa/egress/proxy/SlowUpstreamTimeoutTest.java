package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Timeouts that fit LLM APIs (issue 18, item 4), with the limits scaled down: an answer that takes
 * longer than idle_timeout to begin is waited for up to upstream_first_byte_timeout; a stream that
 * goes quiet for idle_timeout in the middle is cut and audited as upstream_timeout, truncated,
 * never as a plain allow.
 */
class SlowUpstreamTimeoutTest {

    private HttpServer upstream;

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        upstream.setExecutor(Executors.newCachedThreadPool());
        upstream.createContext("/slow", exchange -> { // a non-streaming completion that thinks for 2.5 s
            sleep(2500);
            byte[] body = "{\"choices\": []}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.createContext("/quiet", exchange -> { // a stream that stalls after its first event
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            out.write("data: first\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            sleep(3000);
            try {
                out.write("data: late\n\n".getBytes(StandardCharsets.UTF_8));
                out.close();
            } catch (IOException e) {
                // the proxy cut it
            }
        });
        upstream.createContext("/never", exchange -> {
            sleep(9000);
            exchange.close();
        });
        upstream.start();
    }

    @AfterEach
    void stop() {
        upstream.stop(0);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aSlowAnswerIsWaitedForAQuietStreamIsCutAndSaidSo() throws Exception {
        String yaml = "profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.getAddress().getPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "limits:\n  idle_timeout: 1s\n  upstream_first_byte_timeout: 5s\n";
        try (ProxyFixture proxy = ProxyFixture.start(yaml)) {
            String base = "http://127.0.0.1:" + upstream.getAddress().getPort();
            HttpResponse<String> slow = proxy.client().send(HttpRequest.newBuilder(URI.create(base + "/slow"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, slow.statusCode(), "2.5 s to the first byte is more than idle_timeout, less than the first-byte timeout");
            assertEquals("{\"choices\": []}", slow.body());

            HttpResponse<java.io.InputStream> quiet = proxy.client().send(HttpRequest.newBuilder(URI.create(base + "/quiet"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, quiet.statusCode());
            String relayed;
            try (java.io.InputStream in = quiet.body()) {
                relayed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException cut) {
                relayed = "cut: " + cut.getMessage();
            }
            assertTrue(!relayed.contains("late"), "the stream was cut when it went quiet: " + relayed);
            JsonNode record = proxy.awaitAuditRecord(r -> "/quiet".equals(r.path("path").asText()));
            assertEquals("deny", record.path("decision").asText(), "never audited as a plain allow");
            assertEquals("upstream_timeout", record.path("reason").asText());
            assertEquals(200, record.path("status").asInt(), "the status the client got");
            assertTrue(record.path("rule").asText().startsWith("truncated: ") && record.path("rule").asText().contains("idle_timeout"),
                    record.toString());

            long start = System.nanoTime();
            HttpResponse<String> never = proxy.client().send(HttpRequest.newBuilder(URI.create(base + "/never"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertEquals(504, never.statusCode(), never.body());
            assertTrue(never.body().contains("upstream_first_byte_timeout"), never.body());
            assertTrue(waited >= 4500 && waited < 8500, "504 after the first-byte timeout (5 s, checked every idle second): " + waited + " ms");
        }
    }
}
