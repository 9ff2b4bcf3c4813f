package org.cyverse.mesa.egress.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/mesa-egress run} as an operator starts it: a real process, from another working
 * directory, reloaded with SIGHUP, stopped with SIGTERM (exit 0).
 */
class RunProcessIT {

    private static final Pattern SERVING = Pattern.compile("on 127\\.0\\.0\\.1:(\\d+), admin on 127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dir;

    private HttpServer upstream;
    private Process process;

    @BeforeEach
    void startUpstream() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
        upstream.createContext("/", exchange -> {
            byte[] body = "upstream ok".getBytes();
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        upstream.start();
    }

    @AfterEach
    void stop() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
        upstream.stop(0);
    }

    private Process launch(String... args) throws IOException {
        return launchUnder(null, args);
    }

    /** bin/mesa-egress ARGS, run by {@code wrapper} (e.g. nohup) when it is not null. */
    private Process launchUnder(String wrapper, String... args) throws IOException {
        Path launcher = Path.of("bin/mesa-egress").toAbsolutePath();
        java.util.List<String> command = new java.util.ArrayList<>();
        if (wrapper != null) {
            command.add(wrapper);
        }
        command.add(launcher.toString());
        command.addAll(java.util.List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().put("MESA_EGRESS_JAR", Path.of("target/mesa-egress.jar").toAbsolutePath().toString());
        builder.redirectError(dir.resolve("stderr.log").toFile());
        builder.redirectOutput(dir.resolve("stdout.log").toFile());
        process = builder.start();
        return process;
    }

    /** Waits (at most 20 s) for a line of the process's stderr that contains {@code fragment}. */
    private String awaitLog(String fragment) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Path stderr = dir.resolve("stderr.log");
        while (System.nanoTime() < deadline) {
            for (String line : Files.readAllLines(stderr)) {
                if (line.contains(fragment)) {
                    return line;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no log line containing \"" + fragment + "\" in:\n" + Files.readString(stderr));
    }

    private static String config(String allow) {
        return "version: 1\nprofile: P2\nlisten: 127.0.0.1:0\nadmin: 127.0.0.1:0\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n" + allow;
    }

    @Test
    void servesReloadsOnSighupAndStopsCleanlyOnSigterm() throws Exception {
        int upstreamPort = upstream.getAddress().getPort();
        Path file = dir.resolve("mesa-egress.yaml");
        Files.writeString(file, config(""));
        launch("run", "--config", file.toString());
        Matcher m = SERVING.matcher(awaitLog("serving profile P2"));
        assertTrue(m.find());
        int proxyPort = Integer.parseInt(m.group(1));
        int adminPort = Integer.parseInt(m.group(2));

        HttpClient plain = HttpClient.newHttpClient();
        assertEquals(200, plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
        HttpClient viaProxy = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort))).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + upstreamPort + "/x")).build();
        assertEquals(403, viaProxy.send(request, HttpResponse.BodyHandlers.ofString()).statusCode());

        Files.writeString(file, config("allow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstreamPort + "]\n"));
        new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).start().waitFor();
        awaitLog("config reloaded (SIGHUP)");
        HttpResponse<String> allowed = viaProxy.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, allowed.statusCode());
        assertEquals("upstream ok", allowed.body());

        process.destroy(); // SIGTERM
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "stopped within the drain time");
        assertEquals(0, process.exitValue());
        assertNotNull(awaitLog("stopped cleanly"));
        String audit = Files.readString(dir.resolve("stdout.log"));
        assertEquals(2, audit.lines().count(), "one audit line per request on stdout: " + audit);
    }

    /** nohup starts the process with SIGHUP ignored, which the JVM would keep: the launcher gives it back. */
    @Test
    void sighupReloadsUnderNohup() throws Exception {
        Path file = dir.resolve("mesa-egress.yaml");
        Files.writeString(file, config(""));
        launchUnder("nohup", "run", "--config", file.toString());
        awaitLog("serving profile P2");
        new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).start().waitFor();
        awaitLog("config reloaded (SIGHUP)");
        assertTrue(process.isAlive(), "SIGHUP reloads, it does not stop the proxy");
        assertTrue(!Files.readString(dir.resolve("stderr.log")).contains("SIGHUP is ignored"), Files.readString(dir.resolve("stderr.log")));
    }

    @Test
    void aBadConfigExits2AndNamesTheKey() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "version: 1\nprofile: P2\nlimits:\n  idle_timeout: forever\n");
        launch("run", "--config", file.toString());
        assertTrue(process.waitFor(20, TimeUnit.SECONDS));
        assertEquals(2, process.exitValue());
        assertNotNull(awaitLog(":4: limits.idle_timeout: "));
    }
}
