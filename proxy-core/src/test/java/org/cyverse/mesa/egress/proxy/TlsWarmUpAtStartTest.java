package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.cyverse.mesa.egress.injector.openbao.LogCapture;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running proxy's TLS warm-up: once ready (the first ready answer, or a second after listening) it runs and completes (the handshake
 * with the credential host's leaf and a record each way), and an operator sees nothing of it but
 * a FINE log line: no audit record, no extra leaf in {@code leaf_certificates_issued_total}.
 */
class TlsWarmUpAtStartTest {

    @Test
    void onceReadyTheWarmUpRunsAndLeavesNoTrace(@TempDir Path dir) throws Exception {
        Path secrets = dir.resolve("secrets");
        Files.writeString(secrets, "key: sk-ant-real-0123456789\n");
        try (LogCapture logs = new LogCapture();
                ProxyFixture proxy = ProxyFixture.start("profile: P2\n"
                        + "tls:\n  intercept: auto\n"
                        + "credentials:\n"
                        + "  - name: anthropic\n    hosts: [\"api.anthropic.com\"]\n"
                        + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                        + "    secret: \"file:" + secrets + "#key\"\n")) {
            proxy.awaitReady(Duration.ofSeconds(5));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!logs.text().contains("TLS warm-up") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(logs.text().contains("TLS warm-up done in "), "the warm-up completed: " + logs.text());
            String metrics = proxy.admin("/metrics").body();
            assertTrue(metrics.contains("mesa_egress_leaf_certificates_issued_total 1.0"),
                    "one leaf, the prefetched one:\n" + metrics.lines().filter(l -> l.contains("leaf")).toList());
            assertEquals("", proxy.auditText(), "the warm-up is not a request");
            logs.assertNoneOf("sk-ant-real-0123456789");
        }
    }
}
