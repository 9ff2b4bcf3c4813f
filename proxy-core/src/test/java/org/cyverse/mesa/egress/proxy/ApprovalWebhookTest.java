package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * approvals.webhook against a real receiver on loopback: each event arrives signed (verified here
 * with the receiver's own HMAC-SHA256, as an inbox would), a receiver that fails first gets the
 * event again, and the key appears in no audit record, metric or answer.
 */
class ApprovalWebhookTest {

    static final String KEY = "whsec-7a1c0e9d5b3f2e48";
    static final String TOKEN = "operator-token-9e8d7c6b5a41";
    static final ObjectMapper JSON = new ObjectMapper();

    record Received(String signature, String event, byte[] body) {}

    @TempDir
    Path dir;

    @Test
    void eventsArriveSignedAndARefusedDeliveryIsRetried() throws Exception {
        List<Received> received = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        receiver.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            int n = calls.incrementAndGet();
            if (n > 1) {
                received.add(new Received(exchange.getRequestHeaders().getFirst("X-Mesa-Egress-Signature"),
                        exchange.getRequestHeaders().getFirst("X-Mesa-Egress-Event"), body));
            }
            exchange.sendResponseHeaders(n == 1 ? 503 : 204, -1); // the first delivery fails: the inbox was restarting
            exchange.close();
        });
        receiver.start();
        Files.writeString(dir.resolve("hook.json"), "{\"key\": \"" + KEY + "\"}");
        Files.writeString(dir.resolve("token"), TOKEN + "\n");
        String yaml = "profile: P2\negress: N2\n"
                + "admin: {listen: 127.0.0.1:0, token_file: \"" + dir.resolve("token") + "\"}\n"
                + "approvals:\n  enabled: true\n  webhook:\n    url: http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook\n"
                + "    secret: \"file:" + dir.resolve("hook.json") + "#key\"\n";
        try (ProxyFixture proxy = ProxyFixture.start(yaml, host -> List.of(InetAddress.getByName("127.0.0.1")))) {
            Curl.Result refused = Curl.through(proxy.port(), "http://pypi.test:9/simple/");
            String id = JSON.readTree(refused.out()).path("approval_id").asText();
            await(received, 1);
            HttpResponse<String> approved = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + proxy.adminPort() + "/approvals/" + id + "/approve"))
                    .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": \"1h\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, approved.statusCode(), approved.body());
            await(received, 2);

            assertEquals(List.of("approval.requested", "approval.approved"), received.stream().map(Received::event).toList());
            for (Received r : received) {
                String[] parts = r.signature().split(",");
                long t = Long.parseLong(parts[0].substring(2));
                assertTrue(Math.abs(Instant.now().getEpochSecond() - t) < 60, "signed now: " + r.signature());
                assertEquals("v1=" + hmac(KEY, t + "." + new String(r.body(), StandardCharsets.UTF_8)), parts[1], "the signature verifies");
                JsonNode body = JSON.readTree(r.body());
                assertEquals(id, body.path("approval").path("id").asText());
                assertEquals("pypi.test", body.path("approval").path("asked").path("host").asText());
            }
            assertEquals("approved", JSON.readTree(received.get(1).body()).path("approval").path("state").asText());
            // Counted when the proxy has the receiver's answer, a moment after the receiver has the body.
            String metrics = new String(proxy.server().metrics().scrape());
            for (long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                    !metrics.contains("outcome=\"delivered\"} 2.0") && System.nanoTime() < deadline; ) {
                Thread.sleep(20);
                metrics = new String(proxy.server().metrics().scrape());
            }
            assertTrue(metrics.contains("mesa_egress_approval_webhook_total{outcome=\"retried\"} 1.0"), metrics);
            assertTrue(metrics.contains("mesa_egress_approval_webhook_total{outcome=\"delivered\"} 2.0"), metrics);
            assertFalse((proxy.auditText() + metrics + refused.out()).contains(KEY), "the key goes nowhere but into signatures");
        } finally {
            receiver.stop(0);
        }
    }

    private static void await(List<Received> received, int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (received.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(count, received.size(), "events received: " + received.stream().map(Received::event).toList());
    }

    private static String hmac(String key, String text) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    }
}
