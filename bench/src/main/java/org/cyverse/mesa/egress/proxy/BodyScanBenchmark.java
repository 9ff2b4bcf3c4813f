package org.cyverse.mesa.egress.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.bench.BenchmarkBase;
import org.cyverse.mesa.egress.bench.KeepAliveHttpsClient;
import org.cyverse.mesa.egress.bench.LoopbackHttpsUpstream;
import org.cyverse.mesa.egress.proxy.server.ProxyServer;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Requests per second of one client doing sequential keep-alive intercepted POSTs of a JSON body
 * ({@code size} bytes: 1 KiB, a tool call; 1 MiB, an upload) through the real proxy, with
 * {@code credentials} credentials configured (one for the upstream's host, the others for hosts
 * of their own): the cost of scanning request bodies for every credential's value and the
 * out-of-scope sentinels, and of holding the body until it is scanned. Uses only the proxy's
 * public API, so that the same source measures a build from before body scanning as a baseline
 * (see bench/RESULTS-bodyscan.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BodyScanBenchmark extends BenchmarkBase {

    static final String HEADER = "x-api-key";

    @Param({"1", "50"})
    public int credentials;

    @Param({"1024", "1048576"})
    public int size;

    private Path dir;
    private LoopbackHttpsUpstream upstream;
    private ProxyServer proxy;
    private KeepAliveHttpsClient client;
    private byte[] body;

    @Setup
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("mesa-egress-bench-body");
        TestPki pki = new TestPki("upstream");
        upstream = new LoopbackHttpsUpstream(pki.serverContext("localhost", "127.0.0.1"), "{\"ok\":true}\n".getBytes(StandardCharsets.US_ASCII),
                "application/json", HEADER);
        proxy = startProxy(pki);
        client = KeepAliveHttpsClient.open(TestPki.trusting(proxy.ca().certificate()), proxy.proxyAddress().getPort(), "localhost",
                upstream.port(), "/v1/messages");
        body = body(size);
        int status = client.post(body, "application/json");
        if (status != 200 || upstream.lastRequestBodyBytes() != size || !secret(0).equals(upstream.lastWatched())) {
            throw new IllegalStateException("expected 200 with the body and the credential upstream, got " + status + " with "
                    + upstream.lastRequestBodyBytes() + " bytes");
        }
    }

    private static String secret(int i) {
        return "sk-bench-REAL-" + i + "-0123456789abcdefghij";
    }

    /** A JSON chat request of exactly {@code size} bytes, text that starts many near misses (sk-, base64-looking runs). */
    private static byte[] body(int size) {
        String head = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"";
        String tail = "\"}]}";
        StringBuilder text = new StringBuilder(size);
        String filler = "Please refactor sk-module: the key in config is read by parse_env(); see RFC 4648 base64 QUJDREVGR0g=\\n";
        while (text.length() < size - head.length() - tail.length()) {
            text.append(filler);
        }
        text.setLength(size - head.length() - tail.length());
        return (head + text + tail).getBytes(StandardCharsets.US_ASCII);
    }

    private ProxyServer startProxy(TestPki pki) throws Exception {
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        StringBuilder secrets = new StringBuilder();
        StringBuilder creds = new StringBuilder("credentials:\n");
        int port = upstream.port();
        for (int i = 0; i < credentials; i++) {
            secrets.append("c").append(i).append(": \"").append(secret(i)).append("\"\n");
            String host = i == 0 ? "localhost" : "c" + i + ".bench.example";
            creds.append("  - name: c").append(i).append("\n    hosts: [\"").append(host).append("\"]\n    ports: [").append(port)
                    .append("]\n    sentinel: \"sk-sentinel-").append(i).append("\"\n    header: \"").append(HEADER)
                    .append("\"\n    format: \"{secret}\"\n    secret: \"file:").append(dir.resolve("secrets.yaml")).append("#c")
                    .append(i).append("\"\n");
        }
        Files.writeString(dir.resolve("secrets.yaml"), secrets);
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\nlisten: 127.0.0.1:0\nadmin: 127.0.0.1:0\n"
                + "tls:\n  ca_cert: \"" + dir.resolve("ca/ca.pem") + "\"\n  ca_key: \"" + dir.resolve("ca/ca.key") + "\"\n"
                + "  upstream_ca: \"" + ca + "\"\n  intercept: auto\n"
                + "allow:\n"
                + "  - host: \"localhost\"\n    ports: [" + port + "]\n"
                + "  - host: \"*.bench.example\"\n    ports: [" + port + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + creds);
        return BenchProxy.start(config);
    }

    @TearDown
    public void tearDown() throws IOException {
        BenchProxy.tearDown(client, proxy, upstream, dir);
    }

    @Benchmark
    public int post() throws IOException {
        int status = client.post(body, "application/json");
        if (status != 200) {
            throw new IOException("status " + status); // a fast refusal must not pass for throughput
        }
        return status;
    }
}
