package org.cyverse.mesa.egress.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The sidecar as the image runs it: the launcher on the jlink runtime that Maven built
 * ({@code target/jlink-runtime/bin/java -jar target/mesa-egress.jar run}), configured by file and
 * environment, writing the agent's trust files into a share dir; then real clients that use only
 * those files.
 *
 * <p>Two HTTPS upstreams with certificates from two different test CAs: 127.0.0.2 is intercepted
 * (its rule limits methods), its CA given to the proxy as {@code tls.upstream_ca}; 127.0.0.3 is
 * an opaque tunnel, its CA ("other CA") added to what the launcher takes for the system trust by
 * pointing {@code MESA_EGRESS_SYSTEM_CA_BUNDLE} at the system bundle plus that CA. The agent's
 * client, holding nothing but {@code bundle.pem}, must reach both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SidecarRuntimeIT {

    private static final Pattern SERVING = Pattern.compile("on 127\\.0\\.0\\.1:(\\d+), admin on 127\\.0\\.0\\.1:(\\d+)");
    private static final Duration SHORT = Duration.ofSeconds(15);

    private Path dir;
    private Path share;
    private HttpServer plain;
    private HttpsUpstream intercepted;
    private HttpsUpstream tunnelled;
    private TestPki otherCa;
    private Process proxy;
    private Path nativeWorkdir;
    private int proxyPort;
    private int adminPort;

    @BeforeAll
    void start() throws Exception {
        Path runtime = Path.of("target/jlink-runtime");
        if (!Files.isExecutable(runtime.resolve("bin/java"))) {
            fail("no jlink runtime at " + runtime.toAbsolutePath() + ": `mvn package` builds it (unless -Dmesa.jlink.skip)");
        }
        dir = Files.createTempDirectory("mesa-sidecar");
        share = dir.resolve("share");
        plain = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        plain.createContext("/", exchange -> {
            byte[] body = "plain ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        plain.start();
        TestPki upstreamCa = new TestPki("intercepted-upstream");
        intercepted = new HttpsUpstream(upstreamCa.serverContext("127.0.0.2"), "127.0.0.2");
        otherCa = new TestPki("tunnelled-upstream-other");
        tunnelled = new HttpsUpstream(otherCa.serverContext("127.0.0.3"), "127.0.0.3");

        Path upstreamCaPem = upstreamCa.writeCaPem(dir.resolve("upstream-ca.pem"));
        // The launcher's "system trust" for this test: the machine's bundle (when it has one) plus the other CA.
        Path systemBundle = dir.resolve("system-bundle.pem");
        Path debian = Path.of("/etc/ssl/certs/ca-certificates.crt");
        String system = Files.isReadable(debian) ? Files.readString(debian, StandardCharsets.US_ASCII) : "";
        Files.writeString(systemBundle, system + Files.readString(otherCa.writeCaPem(dir.resolve("other-ca.pem"))));

        Path config = dir.resolve("mesa-egress.yaml");
        Files.writeString(config, String.join("\n",
                "version: 1",
                "profile: P2",
                "listen: 127.0.0.1:3128        # overridden by MESA_EGRESS_LISTEN",
                "admin: 127.0.0.1:9090         # overridden by --admin",
                "allow:",
                "  - host: \"127.0.0.1\"",
                "    ports: [" + plain.getAddress().getPort() + "]",
                "  - host: \"127.0.0.2\"",
                "    ports: [" + intercepted.port() + "]",
                "    methods: [GET]            # a method rule: the proxy must intercept",
                "  - host: \"127.0.0.3\"",
                "    ports: [" + tunnelled.port() + "]",
                "network:",
                "  allow_private: [\"127.0.0.0/8\"]",
                "tls:",
                "  ca_cert: " + dir.resolve("ca/ca.pem"),
                "  ca_key: " + dir.resolve("ca/ca.key"),
                "  upstream_ca: " + upstreamCaPem,
                ""), StandardCharsets.UTF_8);

        // The image's entry point: the same JVM options file and flags (Dockerfile ENTRYPOINT), and
        // a directory of its own where Netty would copy native libraries it did not find.
        nativeWorkdir = Files.createDirectories(dir.resolve("native-workdir"));
        ProcessBuilder builder = new ProcessBuilder(runtime.resolve("bin/java").toAbsolutePath().toString(),
                "@" + Path.of("bin/jvm.options").toAbsolutePath(), "-XX:-UsePerfData", "-XX:TrimNativeHeapInterval=3000",
                "-XX:AOTCache=" + runtime.resolve("lib/mesa-egress.aot").toAbsolutePath(),
                "-Djava.library.path=" + runtime.resolve("lib/native").toAbsolutePath(),
                "-Dio.netty.native.workdir=" + nativeWorkdir,
                "-jar", Path.of("target/mesa-egress.jar").toAbsolutePath().toString(),
                "run", "--admin", "127.0.0.1:0")
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .redirectError(dir.resolve("stderr.log").toFile());
        builder.environment().put("MESA_EGRESS_CONFIG", config.toString());
        builder.environment().put("MESA_EGRESS_LISTEN", "127.0.0.1:0");
        builder.environment().put("MESA_EGRESS_ADMIN", "127.0.0.1:9");   // the --admin flag wins over it
        builder.environment().put("MESA_EGRESS_SHARE_DIR", share.toString());
        builder.environment().put("MESA_EGRESS_SYSTEM_CA_BUNDLE", systemBundle.toString());
        proxy = builder.start();
        Path stderr = dir.resolve("stderr.log");
        if (!Command.awaitLine(stderr, "serving profile P2", SHORT)) {
            fail("the proxy did not start on the jlink runtime:\n" + Files.readString(stderr));
        }
        Matcher m = SERVING.matcher(Files.readAllLines(stderr).stream().filter(l -> l.contains("serving profile")).findFirst().orElseThrow());
        assertTrue(m.find());
        proxyPort = Integer.parseInt(m.group(1));
        adminPort = Integer.parseInt(m.group(2));
    }

    @AfterAll
    void stop() throws Exception {
        if (proxy != null && proxy.isAlive()) {
            proxy.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        plain.stop(0);
        intercepted.close();
        tunnelled.close();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    @Order(1)
    void theTrimmedRuntimeServesPlainAndInterceptedRequests() throws Exception {
        String release = Files.readString(Path.of("target/jlink-runtime/release"));
        assertTrue(release.contains("jdk.crypto.ec") && release.contains("jdk.unsupported"), release);
        assertFalse(release.contains("java.desktop"), "trimmed: " + release);

        assertEquals(200, status(HttpClient.newHttpClient(), "http://127.0.0.1:" + adminPort + "/readyz"));
        HttpClient viaProxy = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort))).build();
        HttpResponse<String> forwarded = viaProxy.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + plain.getAddress().getPort() + "/x")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("plain ok", forwarded.body());
        // TLS both ways on the trimmed runtime: EC leaf minting, ECDHE, upstream verification.
        HttpClient javaAgent = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort)))
                .sslContext(trustStoreContext()).build();
        assertEquals(200, status(javaAgent, "https://127.0.0.2:" + intercepted.port() + "/intercepted"));
        assertEquals("/intercepted", intercepted.seen().get(intercepted.seen().size() - 1).uri());
    }

    @Test
    @Order(2)
    void theShareDirHoldsWorldReadableTrustFilesAndNoKey() throws Exception {
        for (String name : List.of("ca.pem", "bundle.pem", "truststore.p12", "node-proxy.cjs")) {
            Path file = share.resolve(name);
            assertTrue(Files.isRegularFile(file), name);
            assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), name);
            assertFalse(Files.readString(file, StandardCharsets.ISO_8859_1).contains("PRIVATE KEY"), name + " must not hold a key");
        }
        try (var files = Files.list(share)) {
            assertEquals(4, files.count(), "no temporary files left behind");
        }
        String servedCa = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/ca.pem")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        X509Certificate ca = certificates(share.resolve("ca.pem")).iterator().next();
        assertEquals(ca, certificates(servedCa.getBytes(StandardCharsets.US_ASCII)).iterator().next(), "ca.pem is the CA /ca.pem serves");
        Collection<X509Certificate> bundle = certificates(share.resolve("bundle.pem"));
        assertTrue(bundle.contains(ca), "the bundle holds the interception CA");
        assertTrue(bundle.contains(otherCa.ca()), "the bundle holds the system trust");
    }

    @Test
    @Order(3)
    void aClientWithOnlyTheBundleReachesAnInterceptedAndATunnelledHost() throws Exception {
        String bundle = share.resolve("bundle.pem").toString();
        String proxyUrl = "http://127.0.0.1:" + proxyPort;
        String interceptedUrl = "https://127.0.0.2:" + intercepted.port() + "/via-bundle";
        String tunnelledUrl = "https://127.0.0.3:" + tunnelled.port() + "/via-bundle";

        Command.Result a = curl("--cacert", bundle, "-x", proxyUrl, interceptedUrl);
        assertTrue(a.ok() && a.stdout().startsWith("GET /via-bundle"), a.describe());
        Command.Result b = curl("--cacert", bundle, "-x", proxyUrl, tunnelledUrl);
        assertTrue(b.ok() && b.stdout().startsWith("GET /via-bundle"), b.describe());
        // The control: the interception CA alone does not reach the tunnelled host (curl 60: bad certificate).
        Command.Result onlyCa = curl("--cacert", share.resolve("ca.pem").toString(), "-x", proxyUrl, tunnelledUrl);
        assertEquals(60, onlyCa.exit(), onlyCa.describe());

        // A Java agent with JAVA_TOOL_OPTIONS' trust store: the same two hosts.
        HttpClient javaAgent = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort)))
                .sslContext(trustStoreContext()).build();
        assertEquals(200, status(javaAgent, interceptedUrl));
        assertEquals(200, status(javaAgent, tunnelledUrl));

        String audit = Files.readString(dir.resolve("stdout.log"));
        assertTrue(audit.contains("\"mode\":\"intercept\"") && audit.contains("\"mode\":\"tunnel\""),
                "one host intercepted, the other tunnelled:\n" + audit);
    }

    @Test
    @Order(4)
    void theRuntimeStartsAsTheImageDoesWithoutWarningsOrCopiedLibraries() throws Exception {
        Path runtime = Path.of("target/jlink-runtime");
        String arch = System.getProperty("os.arch").equals("aarch64") ? "aarch_64" : "x86_64";
        for (String lib : List.of("libnetty_tcnative_linux_" + arch + ".so", "libnetty_transport_native_epoll_" + arch + ".so")) {
            assertTrue(Files.isRegularFile(runtime.resolve("lib/native").resolve(lib)), "the runtime carries " + lib);
        }
        try (var copied = Files.list(nativeWorkdir)) {
            assertEquals(List.of(), copied.toList(), "BoringSSL and epoll load from lib/native, nothing is copied out of the jar");
        }
        // Every stderr line is the launcher's own: no JDK restricted-method warning, no SLF4J notice, no AOT error.
        List<String> foreign = Files.readAllLines(dir.resolve("stderr.log")).stream()
                .filter(l -> !l.isBlank() && !l.matches("^\\d{4}-\\d\\d-\\d\\dT.* (INFO|WARNING|SEVERE) .*")).toList();
        assertEquals(List.of(), foreign, "lines not written by the launcher's log");
        String release = Files.readString(runtime.resolve("release"));
        Matcher version = Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(release);
        assertTrue(version.find(), release);
        if (Integer.parseInt(version.group(1)) >= 25) {
            // AOTMode=on: the JVM exits with an error instead of ignoring a cache that does not match.
            Command.Result strict = Command.run(SHORT, runtime.resolve("bin/java").toAbsolutePath().toString(),
                    "@" + Path.of("bin/jvm.options").toAbsolutePath(), "-XX:AOTMode=on",
                    "-XX:AOTCache=" + runtime.resolve("lib/mesa-egress.aot").toAbsolutePath(),
                    "-jar", Path.of("target/mesa-egress.jar").toAbsolutePath().toString(), "--version");
            assertTrue(strict.ok() && strict.stdout().startsWith("mesa-egress "), "the training run's cache fits this runtime and jar: "
                    + strict.describe());
        }
    }

    @Test
    @Order(5)
    void sigtermDrainsAndExitsZero() throws Exception {
        // The clients' pooled connections close after 1 s idle (failsafe sets jdk.httpclient.keepalive.timeout).
        long deadline = System.nanoTime() + SHORT.toNanos();
        while (!curl("http://127.0.0.1:" + adminPort + "/metrics").stdout().contains("mesa_egress_active_connections 0.0")
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        proxy.destroy(); // SIGTERM: sun.misc.Signal, from jdk.unsupported, must be in the runtime
        assertTrue(proxy.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, proxy.exitValue(), Files.readString(dir.resolve("stderr.log")));
        assertTrue(Command.awaitLine(dir.resolve("stderr.log"), "stopped cleanly", SHORT));
        assertNotEquals(9, adminPort, "--admin won over MESA_EGRESS_ADMIN");
    }

    private SSLContext trustStoreContext() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(share.resolve("truststore.p12"))) {
            store.load(in, "changeit".toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    private static int status(HttpClient client, String url) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(SHORT).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static Command.Result curl(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("curl", "-sS", "--connect-timeout", "5", "-m", "10"));
        command.addAll(List.of(args));
        return Command.run(SHORT, Map.of(), command);
    }

    @SuppressWarnings("unchecked")
    private static Collection<X509Certificate> certificates(Path pem) throws Exception {
        return certificates(Files.readAllBytes(pem));
    }

    @SuppressWarnings("unchecked")
    private static Collection<X509Certificate> certificates(byte[] pem) throws Exception {
        return (Collection<X509Certificate>) CertificateFactory.getInstance("X.509").generateCertificates(new java.io.ByteArrayInputStream(pem));
    }
}
