package org.cyverse.mesa.egress.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cyverse.mesa.egress.audit.JsonLinesFormat;
import org.cyverse.mesa.egress.audit.StreamSink;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.config.ProfileCatalog;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.proxy.server.ProxyServer;

/**
 * The real proxy, started on port 0 (proxy and admin) from a real config file, with its audit
 * log captured in memory. Test configs add {@code network.allow_private: [127.0.0.1/32]} so
 * loopback upstreams are reachable, and nothing else.
 */
public final class ProxyFixture implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final Path configFile;
    private final AuditBuffer auditOut = new AuditBuffer();
    private final ProxyServer server;

    private ProxyFixture(Path dir, Path configFile, HostResolver resolver) throws IOException {
        this.dir = dir;
        this.configFile = configFile;
        ConfigResult result = loader().load(configFile, Overrides.NONE);
        assertTrue(result.ok(), () -> "test config invalid: " + result.problems());
        this.server = new ProxyServer(result.config(), resolver, new StreamSink(auditOut, false, new JsonLinesFormat()));
        server.start();
    }

    /**
     * A config file of {@code version: 1} with the test defaults and then {@code yaml}; a
     * {@code yaml} with an {@code admin:} map of its own keeps it (its {@code listen} should be port 0).
     */
    public static String config(String yaml) {
        boolean ownAdmin = yaml.startsWith("admin:") || yaml.contains("\nadmin:");
        return "version: 1\nlisten: 127.0.0.1:0\n" + (ownAdmin ? "" : "admin: 127.0.0.1:0\n") + yaml;
    }

    /** Starts a proxy with {@code yaml} (see {@link #config}); the system resolver. */
    public static ProxyFixture start(String yaml) throws IOException {
        return start(yaml, HostResolver.SYSTEM);
    }

    public static ProxyFixture start(String yaml, HostResolver resolver) throws IOException {
        Path dir = Files.createTempDirectory("mesa-egress-test");
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, config(yaml));
        return new ProxyFixture(dir, file, resolver);
    }

    public static ConfigLoader loader() {
        return new ConfigLoader(ProfileCatalog.bundled());
    }

    public ProxyServer server() {
        return server;
    }

    public Path configFile() {
        return configFile;
    }

    /** Rewrites the config file (same test defaults) without reloading. */
    public void rewriteConfig(String yaml) throws IOException {
        Files.writeString(configFile, config(yaml));
    }

    public int port() {
        return server.proxyAddress().getPort();
    }

    public int adminPort() {
        return server.adminAddress().getPort();
    }

    /** A JDK HttpClient whose every request goes through this proxy. */
    public HttpClient client() {
        return HttpClient.newBuilder()
                .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port())))
                .connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** A JDK HttpClient through this proxy that trusts its interception CA, as an agent's client is set up to. */
    public HttpClient interceptingClient() throws Exception {
        return HttpClient.newBuilder()
                .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port())))
                .sslContext(org.cyverse.mesa.egress.testpki.TestPki.trusting(server.ca().certificate()))
                .connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** Waits until {@code /readyz} answers 200, for at most {@code wait}; fails with its last answer otherwise. */
    public void awaitReady(Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (admin("/readyz").statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        HttpResponse<String> ready = admin("/readyz");
        org.junit.jupiter.api.Assertions.assertEquals(200, ready.statusCode(), ready.body());
    }

    /** GET on the admin port. */
    public HttpResponse<String> admin(String path) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort() + path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the unlabelled sample {@code name} on {@code /metrics}; fails when it is not there. */
    public double metric(String name) throws IOException, InterruptedException {
        for (String line : admin("/metrics").body().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no sample " + name + " on /metrics");
    }

    /** Waits (at most 5 s) until at least {@code count} audit records were written, and returns all. */
    public List<JsonNode> awaitAudit(int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<JsonNode> records = auditRecords();
        while (records.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
            records = auditRecords();
        }
        assertTrue(records.size() >= count, "expected " + count + " audit records, got " + records);
        return records;
    }

    /** Waits (at most 5 s) for an audit record that {@code test} accepts, and returns it. */
    public JsonNode awaitAuditRecord(java.util.function.Predicate<JsonNode> test) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        do {
            for (JsonNode record : auditRecords()) {
                if (test.test(record)) {
                    return record;
                }
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("no such audit record in " + auditRecords());
    }

    /** The audit records written so far. */
    public List<JsonNode> auditRecords() {
        List<JsonNode> records = new ArrayList<>();
        for (String line : auditOut.text().split("\n")) {
            if (!line.isBlank()) {
                try {
                    records.add(JSON.readTree(line));
                } catch (IOException e) {
                    throw new UncheckedIOException("audit line is not JSON: " + line, e);
                }
            }
        }
        return records;
    }

    /** The raw audit log text. */
    public String auditText() {
        return auditOut.text();
    }

    @Override
    public void close() throws IOException {
        server.close();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A thread-safe in-memory sink. */
    private static final class AuditBuffer extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
