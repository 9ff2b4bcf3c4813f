package org.cyverse.mesa.egress.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's ahead-of-time cache (JDK 25+) holds every class of the jar that a start and the first
 * intercepted requests need (issue 19): a class the training run did not load is read from the jar,
 * parsed, verified and linked while the agent's first request waits (with {@code tls.http2} on,
 * 240 classes and a third of the first request's CPU before the training spoke HTTP/2).
 *
 * <p>The proxy starts as the image starts it, on a CA made beforehand by {@code ca init} (a mounted
 * Secret), with {@code tls.http2} on, a credential and a duration in its config; curl sends one
 * intercepted request over HTTP/2 and one over HTTP/1.1, and the upstream gets the key with each.
 * {@code -Xlog:class+load} names the source of every class: none may come from the jar.
 */
class FirstRequestClassesIT {

    private static final Duration SHORT = Duration.ofSeconds(20);
    private static final Pattern SERVING = Pattern.compile("on 127\\.0\\.0\\.1:(\\d+), admin on 127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern FROM_JAR = Pattern.compile("\\] (\\S+) source: file:.*mesa-egress\\.jar");
    /**
     * Netty's epoll classes for Unix domain sockets, which a TCP proxy never uses: the training run
     * does not load them, so the cache cannot hold them, yet a cached epoll class has the JVM load
     * them on the first read (under a millisecond).
     */
    private static final Set<String> UNUSED_BY_TRAINING = Set.of(
            "io.netty.channel.unix.DomainSocketChannelConfig", "io.netty.channel.epoll.EpollDomainSocketChannelConfig");

    @Test
    void theFirstInterceptedRequestsLoadNoClassFromTheJar(@TempDir Path dir) throws Exception {
        Path runtime = Path.of("target/jlink-runtime").toAbsolutePath();
        Path cache = runtime.resolve("lib/mesa-egress.aot");
        assumeTrue(Files.isRegularFile(cache), "a runtime without an AOT cache (JDK 17 builds none): nothing to check");
        TestPki upstreamCa = new TestPki("first-request-upstream");
        try (HttpsUpstream upstream = new HttpsUpstream(upstreamCa.serverContext("localhost"), "127.0.0.1")) {
            List<String> java = List.of(runtime.resolve("bin/java").toString(), "@" + Path.of("bin/jvm.options").toAbsolutePath(),
                    "-XX:AOTCache=" + cache, "-Djava.library.path=" + runtime.resolve("lib/native"));
            String jar = Path.of("target/mesa-egress.jar").toAbsolutePath().toString();
            Command.Result init = Command.run(SHORT, Command.concat(java, "-jar", jar, "ca", "init", "--out", dir.resolve("ca").toString())
                    .toArray(String[]::new));
            assertTrue(init.ok(), init.describe());
            Path secret = Files.writeString(dir.resolve("secret.txt"), "first-request-secret-0123456789\n");
            Path config = dir.resolve("mesa-egress.yaml");
            Files.writeString(config, String.join("\n",
                    "version: 1",
                    "profile: P2",
                    "listen: 127.0.0.1:0",
                    "admin: 127.0.0.1:0",
                    "tls:",
                    "  ca_cert: " + dir.resolve("ca/ca.pem"),
                    "  ca_key: " + dir.resolve("ca/ca.key"),
                    "  upstream_ca: " + upstreamCa.writeCaPem(dir.resolve("upstream-ca.pem")),
                    "  http2: true",
                    "allow:",
                    "  - host: localhost",
                    "    ports: [" + upstream.port() + "]",
                    "network:",
                    "  allow_private: [\"127.0.0.1/32\"]",
                    "credentials:             # a credential for the host: it is intercepted, as an API host is",
                    "  - name: first",
                    "    hosts: [localhost]",
                    "    ports: [" + upstream.port() + "]",
                    "    header: x-api-key",
                    "    format: \"{secret}\"",
                    "    secret: \"file:" + secret + "\"",
                    "limits:",
                    "  idle_timeout: 300s",
                    ""), StandardCharsets.UTF_8);
            Path classes = dir.resolve("class-load.log");
            Path stderr = dir.resolve("stderr.log");
            Process proxy = Command.start(dir.resolve("stdout.log"), stderr, Command.concat(java,
                    "-Xlog:class+load=info:file=" + classes, "-jar", jar, "run", "--config", config.toString()));
            try {
                assertTrue(Command.awaitLine(stderr, "serving profile", SHORT), () -> read(stderr));
                Matcher m = SERVING.matcher(read(stderr));
                assertTrue(m.find(), () -> read(stderr));
                String proxyUrl = "http://127.0.0.1:" + m.group(1);
                String url = "https://localhost:" + upstream.port() + "/first";
                for (String version : List.of("--http2", "--http1.1")) {
                    Command.Result r = Command.run(SHORT, Map.of(), List.of("curl", "-sS", "-m", "15", version, "-o", "/dev/null",
                            "-w", "%{http_code} %{http_version}", "--cacert", dir.resolve("ca/ca.pem").toString(), "-x", proxyUrl, url));
                    assertEquals(version.equals("--http2") ? "200 2" : "200 1.1", r.stdout().trim(), r.describe());
                }
                assertEquals(List.of("first-request-secret-0123456789", "first-request-secret-0123456789"),
                        upstream.seen().stream().map(seen -> seen.header("x-api-key")).toList(), "both intercepted, the key injected");
            } finally {
                proxy.destroy();
                proxy.waitFor(30, TimeUnit.SECONDS);
            }
            List<String> fromJar = Files.readAllLines(classes).stream().map(FROM_JAR::matcher).filter(Matcher::find)
                    .map(x -> x.group(1)).filter(name -> !UNUSED_BY_TRAINING.contains(name)).toList();
            assertEquals(List.of(), fromJar, "classes the AOT training run (sidecar-image/jlink/AotTraining.java) did not load");
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
