package org.cyverse.mesa.egress.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** curl through the proxy on 127.0.0.1:{@code port}, with no proxy variable of the test's environment in the way. */
public final class Curl {

    /** What curl did: its exit code, stdout and stderr. */
    public record Result(int exit, String out, String err) {}

    private Curl() {}

    public static Result through(int proxyPort, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10", "-x", "http://127.0.0.1:" + proxyPort));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy"));
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(20, TimeUnit.SECONDS));
        return new Result(process.exitValue(), out, err);
    }
}
