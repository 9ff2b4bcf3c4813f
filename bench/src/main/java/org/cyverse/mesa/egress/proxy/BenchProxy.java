package org.cyverse.mesa.egress.proxy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.cyverse.mesa.egress.audit.JsonLinesFormat;
import org.cyverse.mesa.egress.audit.StreamSink;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.config.ProfileCatalog;
import org.cyverse.mesa.egress.proxy.server.ProxyServer;

/**
 * The real proxy for a benchmark, from a real config file: it resolves only {@code localhost}
 * (to 127.0.0.1), serializes its audit records and discards them, and is ready (every
 * credential read) when this returns.
 */
final class BenchProxy {

    private BenchProxy() {}

    static ProxyServer start(Path config) throws Exception {
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled()).load(config, Overrides.NONE);
        if (!result.ok()) {
            throw new IllegalStateException("bench config invalid: " + result.problems());
        }
        InetAddress loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        HostResolver localhostOnly = host -> {
            if (host.equals("localhost")) {
                return List.of(loopback);
            }
            throw new UnknownHostException(host + ": the benchmark resolves only localhost");
        };
        ProxyServer server = new ProxyServer(result.config(), localhostOnly,
                new StreamSink(OutputStream.nullOutputStream(), false, new JsonLinesFormat()));
        try {
            server.start();
            awaitReady(server);
        } catch (Exception e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** /readyz turns 200 once every credential was read. */
    private static void awaitReady(ProxyServer server) throws IOException, InterruptedException {
        HttpClient admin = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
        HttpRequest readyz = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminAddress().getPort() + "/readyz"))
                .timeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> answer = null;
        for (int i = 0; i < 100; i++) {
            answer = admin.send(readyz, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 200) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the proxy is not ready: " + answer.body());
    }

    /** Closes what a benchmark opened (any of them {@code null}) and deletes its directory. */
    static void tearDown(AutoCloseable client, ProxyServer proxy, AutoCloseable upstream, Path dir) throws IOException {
        try {
            for (AutoCloseable c : new AutoCloseable[] {client, proxy, upstream}) {
                if (c != null) {
                    c.close();
                }
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
