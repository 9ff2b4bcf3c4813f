package org.cyverse.mesa.egress.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A Python script run as an agent runs it: HTTPS_PROXY at the proxy, the proxy's CA as SSL_CERT_FILE, no other proxy variable. */
public final class Python {

    /** What the script did: its exit code, stdout and stderr. */
    public record Result(int exit, String out, String err) {}

    private Python() {}

    public static Result through(int proxyPort, Path proxyCa, String script) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("python3", "-c", script);
        builder.environment().keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy") || k.startsWith("SSL_CERT"));
        builder.environment().put("HTTPS_PROXY", "http://127.0.0.1:" + proxyPort);
        builder.environment().put("SSL_CERT_FILE", proxyCa.toString());
        Process python = builder.start();
        String out = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(python.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(python.waitFor(30, TimeUnit.SECONDS));
        return new Result(python.exitValue(), out, err);
    }
}
