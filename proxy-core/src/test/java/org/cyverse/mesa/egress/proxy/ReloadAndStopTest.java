package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.proxy.server.ConfigReloader;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Reloading the config file into the running proxy, and stopping it gracefully. */
class ReloadAndStopTest {

    @org.junit.jupiter.api.io.TempDir
    Path dir;

    private HttpServer upstream;
    private final CountDownLatch slowStarted = new CountDownLatch(1);

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        upstream.createContext("/fast", exchange -> answer(exchange, "fast"));
        upstream.createContext("/slow", exchange -> {
            slowStarted.countDown();
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(exchange, "slow but complete");
        });
        upstream.start();
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, String text) throws IOException {
        byte[] body = text.getBytes();
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @AfterEach
    void stop() {
        upstream.stop(0);
    }

    private String allowing(int port) {
        return "profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + port + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n";
    }

    private int get(ProxyFixture proxy, String path) throws Exception {
        return proxy.client().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort() + path))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void aValidReloadAppliesAndAnInvalidOneIsRefusedKeepingTheOldConfig() throws Exception {
        int port = upstream.getAddress().getPort();
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nnetwork:\n  allow_private: [\"127.0.0.1/32\"]\n");
                ConfigReloader reloader = new ConfigReloader(proxy.configFile(), ProxyFixture.loader(), Overrides.NONE, proxy.server())) {
            assertEquals(403, get(proxy, "/fast"));

            proxy.rewriteConfig(allowing(port));
            assertTrue(reloader.reloadNow("test"));
            assertEquals(200, get(proxy, "/fast"));

            proxy.rewriteConfig(allowing(port) + "limits:\n  max_connections: many\n");
            assertFalse(reloader.reloadNow("test"));
            assertEquals(200, get(proxy, "/fast"), "the running config stays after a refused reload");

            String metrics = proxy.admin("/metrics").body();
            assertTrue(metrics.contains("mesa_egress_config_reloads_total{outcome=\"success\"} 1.0"), metrics);
            assertTrue(metrics.contains("mesa_egress_config_reloads_total{outcome=\"failure\"} 1.0"), metrics);
        }
    }

    @Test
    void aChangedFileOnDiskIsReloadedWithoutASignal() throws Exception {
        int port = upstream.getAddress().getPort();
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nnetwork:\n  allow_private: [\"127.0.0.1/32\"]\n");
                ConfigReloader reloader = new ConfigReloader(proxy.configFile(), ProxyFixture.loader(), Overrides.NONE, proxy.server())) {
            reloader.watch(50);
            assertEquals(403, get(proxy, "/fast"));
            Files.writeString(proxy.configFile(), ProxyFixture.config(allowing(port)));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            int status = 403;
            while (status != 200 && System.nanoTime() < deadline) {
                Thread.sleep(50);
                status = get(proxy, "/fast");
            }
            assertEquals(200, status);
        }
    }

    /**
     * A file written in two steps (issue 17, item 5): the first half parses, and without its deny
     * list it would let the denied host through for the moment between the writes. The watcher
     * waits for the content to settle, so only the whole file is ever in force.
     */
    @Test
    void aHalfWrittenFileIsNeverInForce() throws Exception {
        int port = upstream.getAddress().getPort();
        String whole = allowing(port) + "deny:\n  - host: \"127.0.0.1\"\n";
        try (ProxyFixture proxy = ProxyFixture.start(whole);
                ConfigReloader reloader = new ConfigReloader(proxy.configFile(), ProxyFixture.loader(), Overrides.NONE, proxy.server())) {
            reloader.watch(400);
            assertEquals(403, get(proxy, "/fast"), "denied");
            String full = ProxyFixture.config(whole + "limits:\n  idle_timeout: 61s\n");
            String half = full.substring(0, full.indexOf("deny:"));
            for (int round = 0; round < 4; round++) {
                Files.writeString(proxy.configFile(), half); // parses: allows 127.0.0.1, denies nothing
                long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
                while (System.nanoTime() < until) {
                    assertEquals(403, get(proxy, "/fast"), "the half-written file was in force");
                }
                Files.writeString(proxy.configFile(), full);
                Thread.sleep(250);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (proxy.server().config().limits().idleTimeout().getSeconds() != 61 && System.nanoTime() < deadline) {
                assertEquals(403, get(proxy, "/fast"));
                Thread.sleep(50);
            }
            assertEquals(61, proxy.server().config().limits().idleTimeout().getSeconds(), "the whole file was taken once it settled");
            assertEquals(403, get(proxy, "/fast"));
        }
    }

    /** A content refused because a file it names is not there yet (a Secret projected after its ConfigMap) is tried again. */
    @Test
    void aRefusedContentIsTriedAgainAndHoldsOnceItsFileAppears() throws Exception {
        int port = upstream.getAddress().getPort();
        Path ca = dir.resolve("late-ca.pem");
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nnetwork:\n  allow_private: [\"127.0.0.1/32\"]\n");
                ConfigReloader reloader = new ConfigReloader(proxy.configFile(), ProxyFixture.loader(), Overrides.NONE, proxy.server())) {
            reloader.watch(50, 300);
            Files.writeString(proxy.configFile(), ProxyFixture.config(allowing(port) + "tls:\n  upstream_ca: \"" + ca + "\"\n"));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!proxy.admin("/metrics").body().contains("mesa_egress_config_reloads_total{outcome=\"failure\"}")
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(403, get(proxy, "/fast"), "refused while the CA file is missing: the running config stays");
            new org.cyverse.mesa.egress.testpki.TestPki("late").writeCaPem(ca); // the Secret arrives
            deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            int status = 403;
            while (status != 200 && System.nanoTime() < deadline) {
                Thread.sleep(50);
                status = get(proxy, "/fast");
            }
            assertEquals(200, status, "tried again once the file was there, without a change to the config file");
        }
    }

    @Test
    void gracefulStopLetsTheRequestInFlightFinishAndRefusesNewConnections() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(allowing(upstream.getAddress().getPort()))) {
            CompletableFuture<HttpResponse<String>> inFlight = proxy.client().sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort() + "/slow")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(slowStarted.await(5, TimeUnit.SECONDS));

            boolean drained = proxy.server().stop(Duration.ofSeconds(10));

            HttpResponse<String> response = inFlight.get(5, TimeUnit.SECONDS);
            assertEquals(200, response.statusCode());
            assertEquals("slow but complete", response.body());
            assertTrue(drained);
            assertThrows(ConnectException.class, () -> new java.net.Socket("127.0.0.1", proxy.port()).close());
            assertEquals(1, proxy.awaitAudit(1).size());
        }
    }
}
