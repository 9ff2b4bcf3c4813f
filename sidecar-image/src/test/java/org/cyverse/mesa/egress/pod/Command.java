package org.cyverse.mesa.egress.pod;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An external command with a bounded run time: its exit code and output. The environment is
 * cleared to PATH (and what the caller adds), so that an http_proxy of the machine running the
 * tests cannot change what curl does.
 */
final class Command {

    /** What a finished command left. */
    record Result(List<String> command, int exit, String stdout, String stderr) {
        boolean ok() {
            return exit == 0;
        }

        /** For assertion messages. */
        String describe() {
            return String.join(" ", command) + "\n  exit " + exit + "\n  stdout: " + stdout.strip() + "\n  stderr: " + stderr.strip();
        }

        Result orFail() {
            if (exit != 0) {
                throw new AssertionError("command failed: " + describe());
            }
            return this;
        }
    }

    /** The test's own PATH (python3 may be a pyenv shim), and the sbin directories that ip and iptables live in. */
    static final String PATH = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin")
            + ":/usr/local/sbin:/usr/sbin:/sbin";

    private Command() {}

    static Result run(Duration timeout, String... command) {
        return run(timeout, Map.of(), List.of(command));
    }

    static Result run(Duration timeout, Map<String, String> env, List<String> command) {
        try {
            Path out = Files.createTempFile("mesa-cmd", ".out");
            Path err = Files.createTempFile("mesa-cmd", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                builder.environment().clear();
                builder.environment().put("PATH", PATH);
                builder.environment().putAll(env);
                Process process = builder.start();
                int exit;
                if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    exit = process.exitValue();
                } else {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    exit = -1;
                }
                String stderr = Files.readString(err, StandardCharsets.UTF_8) + (exit == -1 ? "\n(killed after " + timeout + ")" : "");
                return new Result(List.copyOf(command), exit, Files.readString(out, StandardCharsets.UTF_8), stderr);
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            return new Result(List.copyOf(command), -2, "", "cannot start: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + command, e);
        }
    }

    /** {@code prefix} followed by {@code rest}. */
    static List<String> concat(List<String> prefix, String... rest) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(rest));
        return all;
    }

    /** A long-running command, its output to files; the caller destroys it. */
    static Process start(Path stdout, Path stderr, List<String> command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().clear();
        builder.environment().put("PATH", PATH);
        return builder.start();
    }

    /** Waits, at most {@code timeout}, for a line of {@code file} that contains {@code fragment}. */
    static boolean awaitLine(Path file, String fragment, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(file) && Files.readAllLines(file, StandardCharsets.UTF_8).stream().anyMatch(l -> l.contains(fragment))) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }
}
