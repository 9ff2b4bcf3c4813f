package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request refused by the policy (a step before the credentials) that also carries a real
 * secret: the answer keeps the policy's reason, and neither the answer nor the audit log holds
 * the secret; the record names the leaked credential and the leak is counted.
 */
class LeakInRefusedRequestTest {

    private static final String SECRET = "sk-live-REAL-9b7e1f0c";

    @Test
    void aSecretSentToAHostOfNoRuleStaysOutOfTheAuditAndIsCounted(@TempDir Path dir) throws Exception {
        Path secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "api: " + SECRET + "\n");
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: \"api.example.org\"\n"
                + "credentials:\n  - name: api\n    hosts: [\"api.example.org\"]\n    header: x-api-key\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#api\"\n")) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (proxy.admin("/readyz").statusCode() != 200 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            HttpResponse<String> response = proxy.client().send(HttpRequest.newBuilder(
                    URI.create("http://nowhere.example.net/keys/" + SECRET)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertEquals(403, response.statusCode());
            assertEquals("host_not_allowed", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertFalse(response.body().contains(SECRET), response.body());
            JsonNode record = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("host_not_allowed"));
            assertEquals("[redacted]", record.get("path").asText());
            assertEquals("api", record.get("credential").asText());
            assertFalse(proxy.auditText().contains(SECRET), proxy.auditText());
            String metrics = proxy.admin("/metrics").body();
            assertTrue(metrics.contains("mesa_egress_injections_total{credential=\"api\",outcome=\"leak\"} 1.0"), metrics);
        }
    }
}
