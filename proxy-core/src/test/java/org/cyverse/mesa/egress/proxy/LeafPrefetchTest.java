package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fresh proxy mints the leaves of its credentials' hosts before the agent asks (issue 19): the
 * first intercepted connection of a pod does not wait for a key pair and a signature.
 */
class LeafPrefetchTest {

    @TempDir
    Path dir;

    @Test
    void theCredentialsNamedHostsHaveTheirLeavesBeforeTheFirstConnection() throws Exception {
        TestPki pki = new TestPki("prefetch-upstream");
        try (HttpsUpstream upstream = new HttpsUpstream(pki.serverContext("localhost", "127.0.0.1"), "127.0.0.1")) {
            Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
            Files.writeString(dir.resolve("key"), "prefetch-real-key\n");
            try (ProxyFixture proxy = ProxyFixture.start("profile: P2\n"
                    + "tls:\n  upstream_ca: \"" + ca + "\"\n"
                    + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n"
                    + "  - host: \"api.example.test\"\n    ports: [" + upstream.port() + "]\n"
                    + "  - host: \"*.wild.example.test\"\n    ports: [" + upstream.port() + "]\n"
                    + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                    + "credentials:\n"
                    + "  - name: named\n    hosts: [\"localhost\", \"api.example.test\", \"*.wild.example.test\"]\n"
                    + "    ports: [" + upstream.port() + "]\n"
                    + "    header: \"x-api-key\"\n    format: \"{secret}\"\n    secret: \"file:" + dir.resolve("key") + "\"\n")) {
                proxy.awaitReady(Duration.ofSeconds(5));
                // Two named hosts; a wildcard names no host to mint for.
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (leavesIssued(proxy) < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(2.0, leavesIssued(proxy), "localhost and api.example.test minted with no connection yet");

                HttpResponse<String> first = proxy.interceptingClient().send(HttpRequest.newBuilder(
                        URI.create("https://localhost:" + upstream.port() + "/first")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, first.statusCode(), first.body());
                assertEquals("prefetch-real-key", upstream.seen().get(0).header("x-api-key"));
                assertEquals(2.0, leavesIssued(proxy), "the first connection used the leaf minted ahead");
            }
        }
    }

    private static double leavesIssued(ProxyFixture proxy) throws Exception {
        return proxy.metric("mesa_egress_leaf_certificates_issued_total");
    }

    @Test
    void aLongListIsBoundedSoThatStartDoesNotMintForEveryName() throws Exception {
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            hosts.append(i == 0 ? "" : ", ").append("\"h").append(i).append(".example.test\"");
        }
        Files.writeString(dir.resolve("key"), "k\n");
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\n"
                + "allow:\n  - host: \"*.example.test\"\n    ports: [443]\n"
                + "credentials:\n  - name: many\n    hosts: [" + hosts + "]\n    header: \"x-api-key\"\n"
                + "    secret: \"file:" + dir.resolve("key") + "\"\n")) {
            proxy.awaitReady(Duration.ofSeconds(5));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (leavesIssued(proxy) < org.cyverse.mesa.egress.tls.LeafCertificates.PREFETCH_LIMIT && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(300); // a mint past the bound would show by now
            assertEquals(16.0, leavesIssued(proxy), "the first 16 names, no more");
        }
    }
}
