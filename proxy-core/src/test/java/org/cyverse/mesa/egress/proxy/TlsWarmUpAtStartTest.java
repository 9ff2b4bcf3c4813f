package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
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
        Logger logger = Logger.getLogger("org.cyverse.mesa.egress.tls.LeafCertificates");
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                lines.add(record.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Level before = logger.getLevel();
        logger.setLevel(Level.FINE);
        logger.addHandler(capture);
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  intercept: auto\n"
                + "credentials:\n"
                + "  - name: anthropic\n    hosts: [\"api.anthropic.com\"]\n"
                + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#key\"\n")) {
            proxy.awaitReady(Duration.ofSeconds(5));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (lines.stream().noneMatch(l -> l.startsWith("TLS warm-up")) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("TLS warm-up done in ")), "the warm-up completed: " + lines);
            String metrics = proxy.admin("/metrics").body();
            assertTrue(metrics.contains("mesa_egress_leaf_certificates_issued_total 1.0"),
                    "one leaf, the prefetched one:\n" + metrics.lines().filter(l -> l.contains("leaf")).toList());
            assertEquals("", proxy.auditText(), "the warm-up is not a request");
        } finally {
            logger.removeHandler(capture);
            logger.setLevel(before);
        }
    }
}
