package org.cyverse.mesa.egress.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
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
 * Requests per second of one client doing sequential keep-alive GETs of a 1 KiB body, all on
 * loopback in this JVM, so that the cost of interception shows against the other ways:
 * {@code direct} (HTTPS, client to upstream, no proxy: the ceiling), {@code forward} (plain http
 * through the real proxy, absolute-form, to a plain upstream), {@code tunnel} (through the real
 * proxy as an opaque CONNECT: allowed, no credential, {@code tls.intercept: auto}) and
 * {@code intercept} (through the proxy, which terminates TLS with a leaf of its CA, injects a
 * credential header read from a file, re-encrypts to the upstream and scrubs the response). The
 * leaf is minted once in setup; the loop measures the steady state of one kept-alive connection.
 *
 * <p>The body is JSON by default, as an LLM API answers: the proxy scans such a body for an
 * echoed secret and re-chunks it. {@code -p contentType=application/octet-stream} measures the
 * path without the body scan.
 *
 * <p>The client trusts only what the mode should present (the upstream's CA, or the proxy's CA
 * for {@code intercept}), so a mode that silently took the other path fails its handshake. The
 * proxy resolves only {@code localhost}; every connection is to 127.0.0.1.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ProxyLoopBenchmark extends BenchmarkBase {

    static final String SECRET = "sk-bench-REAL-0123456789abcdef";
    static final String HEADER = "x-api-key";

    @Param({"direct", "forward", "tunnel", "intercept"})
    public String mode;

    @Param({"application/json"})
    public String contentType;

    private Path dir;
    private LoopbackHttpsUpstream upstream;
    private ProxyServer proxy;
    private KeepAliveHttpsClient client;

    @Setup
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("mesa-egress-bench-loop");
        TestPki pki = new TestPki("upstream");
        // forward: plain http to a plain upstream, absolute-form through the proxy; the others: HTTPS.
        upstream = new LoopbackHttpsUpstream(mode.equals("forward") ? null : pki.serverContext("localhost", "127.0.0.1"),
                body(1024), contentType, HEADER);
        SSLContext upstreamTrust = TestPki.trusting(pki.ca());
        switch (mode) {
            case "direct":
                client = KeepAliveHttpsClient.open(upstreamTrust, 0, "localhost", upstream.port(), "/data");
                break;
            case "forward":
                proxy = startProxy(pki);
                client = KeepAliveHttpsClient.openForward(proxy.proxyAddress().getPort(), "127.0.0.1", upstream.port(), "/data");
                break;
            case "tunnel":
                proxy = startProxy(pki);
                client = KeepAliveHttpsClient.open(upstreamTrust, proxy.proxyAddress().getPort(), "127.0.0.1",
                        upstream.port(), "/data");
                break;
            case "intercept":
                proxy = startProxy(pki);
                client = KeepAliveHttpsClient.open(TestPki.trusting(proxy.ca().certificate()),
                        proxy.proxyAddress().getPort(), "localhost", upstream.port(), "/data");
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
        int status = client.get();
        if (status != 200 || client.lastBodyBytes() != 1024) {
            throw new IllegalStateException(mode + ": expected 200 with 1024 bytes, got " + status + " with "
                    + client.lastBodyBytes());
        }
        String seen = upstream.lastWatched();
        if (mode.equals("intercept") ? !SECRET.equals(seen) : seen != null) {
            throw new IllegalStateException(mode + ": the upstream saw " + HEADER + " "
                    + (seen == null ? "absent" : seen.equals(SECRET) ? "= the secret" : "= something else"));
        }
    }

    /** A JSON object of exactly {@code size} bytes. */
    private static byte[] body(int size) {
        String head = "{\"data\": \"";
        String tail = "\"}\n";
        return (head + "x".repeat(size - head.length() - tail.length()) + tail).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The real proxy from a real config file: 127.0.0.1 allowed and tunnelled; localhost intercepted
     * for its credential; the upstream's CA trusted; audit records serialized and discarded.
     */
    private ProxyServer startProxy(TestPki pki) throws Exception {
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Path secret = dir.resolve("secrets.yaml");
        Files.writeString(secret, "bench: \"" + SECRET + "\"\n");
        int port = upstream.port();
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, "version: 1\nprofile: P2\nlisten: 127.0.0.1:0\nadmin: 127.0.0.1:0\n"
                + "tls:\n  ca_cert: \"" + dir.resolve("ca/ca.pem") + "\"\n  ca_key: \"" + dir.resolve("ca/ca.key") + "\"\n"
                + "  upstream_ca: \"" + ca + "\"\n  intercept: auto\n"
                + "allow:\n"
                + "  - host: \"127.0.0.1\"\n    ports: [" + port + "]\n"
                + "  - host: \"localhost\"\n    ports: [" + port + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n"
                + "  - name: bench\n    hosts: [\"localhost\"]\n    ports: [" + port + "]\n"
                + "    header: \"" + HEADER + "\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secret + "#bench\"\n");
        return BenchProxy.start(config);
    }

    @TearDown
    public void tearDown() throws IOException {
        // One connection per request would mean no keep-alive on the upstream side.
        System.err.printf("%n%s: the upstream saw %d connection(s) for %d requests%n", mode, upstream.connections(),
                upstream.requests());
        BenchProxy.tearDown(client, proxy, upstream, dir);
    }

    @Benchmark
    public int get() throws IOException {
        int status = client.get();
        if (status != 200) {
            // A fast refusal must not pass for throughput.
            throw new IOException(mode + ": status " + status);
        }
        return status;
    }
}
