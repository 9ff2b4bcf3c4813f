import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
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
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The training run of the image's ahead-of-time cache (JDK 25, JEP 483/514/515): starts the proxy
 * on the linked runtime with {@code -XX:AOTCacheOutput}, sends it the traffic a pod sends, stops it
 * with SIGTERM as Kubernetes does, and the JVM writes the cache as it exits: the classes it loaded
 * and linked, so that the next start maps them instead of loading them. (build-runtime.sh leaves
 * the method profiles out; README "Runtime and performance" says why.)
 *
 * <p>Everything is on loopback, made here: an HTTPS upstream (a key pair from {@code keytool}), a
 * plain one, the proxy's config and its interception CA (made before the start, so that the start
 * reads it as a pod's does). The traffic: intercepted HTTPS with a header injected (GET, and POST
 * with a JSON body, which is scanned), from HTTP/1.1 and HTTP/2 clients with {@code tls.http2} on,
 * then from HTTP/1.1 after a reload (the config file rewritten) turns it off; a plain HTTP
 * forward, an opaque CONNECT tunnel, a refused host, the admin port's reads. Run by
 * {@code build-runtime.sh}, with the JDK that linked the runtime (it has {@code keytool} and
 * {@code jdk.httpserver}; the runtime has neither):
 *
 * <pre>java AotTraining.java RUNTIME_JAVA JAR CACHE [JVM_FLAG...]</pre>
 *
 * <p>The JVM flags are those the image starts the proxy with (its {@code @jvm.options} file, the
 * native library path): the cache is only used by a JVM whose flags agree with the run that made it.
 */
public final class AotTraining {

    private static final Pattern SERVING = Pattern.compile("on 127\\.0\\.0\\.1:(\\d+), admin on 127\\.0\\.0\\.1:(\\d+)");
    private static final String SECRET = "aot-training-secret-0123456789";
    /** Rounds of the traffic mix: every path of it runs many times, so every class it needs is loaded. */
    private static final int ROUNDS = Integer.getInteger("rounds", 200);

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: java AotTraining.java RUNTIME_JAVA JAR CACHE [JVM_FLAG...]");
            System.exit(2);
        }
        Path runtimeJava = Path.of(args[0]);
        Path jar = Path.of(args[1]).toAbsolutePath();
        Path cache = Path.of(args[2]).toAbsolutePath();
        List<String> flags = List.of(args).subList(3, args.length);
        Path dir = Files.createTempDirectory("mesa-egress-aot");
        long started = System.nanoTime();
        try {
            train(runtimeJava, jar, flags, cache, dir);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.err.printf("AotTraining: %s, %d KiB, in %.1f s%n", cache, Files.size(cache) / 1024,
                (System.nanoTime() - started) / 1e9);
    }

    private static void train(Path java, Path jar, List<String> flags, Path cache, Path dir) throws Exception {
        Path keystore = dir.resolve("upstream.p12");
        Path upstreamPem = dir.resolve("upstream.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        // A CA (the proxy's tls.upstream_ca must be one) and the upstream's certificate from it.
        String[] store = {"-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", "training"};
        run(keytool, store, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=mesa-egress AOT training CA", "-ext", "bc:c");
        run(keytool, store, "-genkeypair", "-alias", "upstream", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost");
        Path request = dir.resolve("upstream.csr");
        Path signed = dir.resolve("upstream.crt");
        run(keytool, store, "-certreq", "-alias", "upstream", "-file", request.toString());
        run(keytool, store, "-gencert", "-alias", "ca", "-infile", request.toString(), "-outfile", signed.toString(), "-rfc",
                "-validity", "2", "-ext", "san=dns:localhost,ip:127.0.0.1", "-ext", "eku=serverAuth");
        run(keytool, store, "-importcert", "-alias", "upstream", "-file", signed.toString(), "-noprompt");
        run(keytool, store, "-exportcert", "-rfc", "-alias", "ca", "-file", upstreamPem.toString());
        run(keytool, store, "-delete", "-alias", "ca"); // the server's only key is the upstream's

        byte[] small = "{\"data\":\"training\"}".getBytes(StandardCharsets.UTF_8);
        HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        https.setHttpsConfigurator(new HttpsConfigurator(serverContext(keystore)));
        HttpServer plain = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        for (HttpServer server : List.of(https, plain)) {
            server.createContext("/", exchange -> {
                try (InputStream in = exchange.getRequestBody()) {
                    in.readAllBytes();
                }
                String key = exchange.getRequestHeaders().getFirst("x-api-key");
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.getResponseHeaders().set("X-Key-Seen", SECRET.equals(key) ? "secret" : "none");
                exchange.sendResponseHeaders(200, small.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(small);
                }
            });
            server.start();
        }
        int httpsPort = https.getAddress().getPort();
        int plainPort = plain.getAddress().getPort();
        Files.writeString(dir.resolve("secret.txt"), SECRET + "\n");
        Path config = dir.resolve("mesa-egress.yaml");
        Files.writeString(config, config(dir, upstreamPem, httpsPort, plainPort, true));
        // The CA exists before the start, as a mounted Secret does: the start reads it (PEM) instead of creating it.
        run(jvm(java, flags, "-jar", jar.toString(), "ca", "init", "--out", dir.resolve("ca").toString()));

        Path stderr = dir.resolve("proxy.err");
        Files.deleteIfExists(cache);
        Process proxy = new ProcessBuilder(jvm(java, flags, "-XX:AOTCacheOutput=" + cache, "-jar", jar.toString(), "run",
                "--config", config.toString()))
                .redirectOutput(dir.resolve("proxy.out").toFile()).redirectError(stderr.toFile()).start();
        try {
            int[] ports = awaitServing(proxy, stderr);
            SSLContext trust = trusting(dir.resolve("ca/ca.pem"), upstreamPem);
            HttpClient agent = agent(ports[0], trust, HttpClient.Version.HTTP_1_1);
            HttpClient agentH2 = agent(ports[0], trust, HttpClient.Version.HTTP_2);
            HttpClient admin = HttpClient.newHttpClient();
            String intercepted = "https://localhost:" + httpsPort + "/v1/items";
            expect(agent, get(intercepted), 200, "secret");
            for (int round = 0; round < ROUNDS; round++) {
                if (round == ROUNDS / 2) {
                    reload(proxy, config, config(dir, upstreamPem, httpsPort, plainPort, false), stderr);
                }
                expect(agent, get(intercepted + "?page=" + round), 200, "secret");
                if (round < ROUNDS / 2) {
                    expect(agentH2, get(intercepted + "?h2=" + round), 200, "secret");
                }
                expect(agent, HttpRequest.newBuilder(URI.create(intercepted)).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"round\":" + round + ",\"text\":\"a JSON body to scan\"}"))
                        .timeout(Duration.ofSeconds(20)).build(), 200, "secret");
                if (round % 4 == 0) {
                    expect(agent, get("http://127.0.0.1:" + plainPort + "/plain"), 200, "none");
                    expect(agent, get("https://127.0.0.1:" + httpsPort + "/tunnel"), 200, "none");
                }
                if (round % 20 == 0) {
                    expect(agent, get("http://127.0.0.1:" + (plainPort == 1 ? 2 : 1) + "/refused"), 403, null);
                    expect(admin, get("http://127.0.0.1:" + ports[1] + "/metrics"), 200, null);
                    expect(admin, get("http://127.0.0.1:" + ports[1] + "/readyz"), 200, null);
                }
            }
        } finally {
            proxy.destroy(); // SIGTERM: the drain, then the JVM's exit writes the cache
            if (!proxy.waitFor(120, TimeUnit.SECONDS)) {
                proxy.destroyForcibly();
                throw new IllegalStateException("the training proxy did not stop within 120 s:\n" + Files.readString(stderr));
            }
            https.stop(0);
            plain.stop(0);
        }
        if (proxy.exitValue() != 0 || !Files.isRegularFile(cache)) {
            throw new IllegalStateException("no AOT cache at " + cache + " (proxy exit " + proxy.exitValue() + "):\n"
                    + Files.readString(stderr));
        }
    }

    /**
     * The proxy's config. The first has {@code tls.http2} on (the agent's side offers h2 only from a
     * start with it on) and a file as audit sink; the second, loaded by a reload, has neither, so
     * both ways of setting up an intercepted CONNECT are trained, and the default sink (stdout),
     * a config class of its own.
     */
    private static String config(Path dir, Path upstreamPem, int httpsPort, int plainPort, boolean first) {
        List<String> lines = new ArrayList<>(List.of(
                "version: 1",
                "profile: P2",
                "listen: 127.0.0.1:0",
                "admin: 127.0.0.1:0",
                "tls:",
                "  ca_cert: " + dir.resolve("ca/ca.pem"),
                "  ca_key: " + dir.resolve("ca/ca.key"),
                "  upstream_ca: " + upstreamPem));
        if (first) {
            lines.add("  http2: true");
        }
        lines.addAll(List.of(
                "allow:",
                "  - host: localhost",
                "    ports: [" + httpsPort + "]",
                "  - host: \"127.0.0.1\"",
                "    ports: [" + httpsPort + ", " + plainPort + "]",
                "network:",
                "  allow_private: [\"127.0.0.1/32\"]",
                "credentials:",
                "  - name: training",
                "    hosts: [localhost]",
                "    ports: [" + httpsPort + "]",
                "    header: x-api-key",
                "    format: \"{secret}\"",
                "    secret: \"file:" + dir.resolve("secret.txt") + "\"",
                "limits:",
                "  idle_timeout: 300s      # a duration: its parser is a class of its own"));
        if (first) {
            lines.addAll(List.of("audit:", "  sink: " + dir.resolve("audit.log")));
        }
        return String.join("\n", lines) + "\n";
    }

    /** The runtime's java with the image's flags, then {@code rest}. */
    private static List<String> jvm(Path java, List<String> flags, String... rest) {
        List<String> command = new ArrayList<>(List.of(java.toString()));
        command.addAll(flags);
        command.addAll(List.of(rest));
        return command;
    }

    /** An agent's client through the proxy, trusting {@code trust}, speaking {@code version} (to the proxy's leaf). */
    private static HttpClient agent(int proxyPort, SSLContext trust, HttpClient.Version version) {
        return HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort)))
                .sslContext(trust).version(version).connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** Rewrites the config, which the proxy watches, and waits for it to say it reloaded (no signal: no kill(1) needed). */
    private static void reload(Process proxy, Path config, String yaml, Path stderr) throws Exception {
        Files.writeString(config, yaml);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(stderr).contains("config reloaded (")) {
            if (System.nanoTime() > deadline || !proxy.isAlive()) {
                throw new IllegalStateException("the training proxy did not reload its config:\n" + Files.readString(stderr));
            }
            Thread.sleep(50);
        }
    }

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build();
    }

    /** Sends and checks the answer: a training run that is not served as a pod is would train the wrong paths. */
    private static void expect(HttpClient client, HttpRequest request, int status, String keySeen) throws Exception {
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != status
                || (keySeen != null && !keySeen.equals(response.headers().firstValue("X-Key-Seen").orElse("")))) {
            throw new IllegalStateException(request.method() + " " + request.uri() + ": " + response.statusCode() + " "
                    + response.headers().map() + " " + response.body());
        }
    }

    private static int[] awaitServing(Process proxy, Path stderr) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && proxy.isAlive()) {
            Matcher m = SERVING.matcher(Files.readString(stderr));
            if (m.find()) {
                return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the training proxy did not start (exit " + (proxy.isAlive() ? "none" : proxy.exitValue())
                + "):\n" + Files.readString(stderr) + Files.readString(stderr.resolveSibling("proxy.out")));
    }

    private static SSLContext serverContext(Path keystore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, "training".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, "training".toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    /** Trusts the proxy's interception CA (intercepted hosts) and the upstream's certificate (the tunnel). */
    private static SSLContext trusting(Path... pems) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        List<String> aliases = new ArrayList<>();
        for (Path pem : pems) {
            try (InputStream in = Files.newInputStream(pem)) {
                String alias = "trusted-" + aliases.size();
                trust.setCertificateEntry(alias, factory.generateCertificate(in));
                aliases.add(alias);
            }
        }
        TrustManagerFactory managers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        managers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, managers.getTrustManagers(), null);
        return context;
    }

    private static void run(String tool, String[] store, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(tool));
        command.add(arguments[0]);
        command.addAll(List.of(store));
        command.addAll(List.of(arguments).subList(1, arguments.length));
        run(command);
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + ": " + output);
        }
    }

    private AotTraining() {}
}
