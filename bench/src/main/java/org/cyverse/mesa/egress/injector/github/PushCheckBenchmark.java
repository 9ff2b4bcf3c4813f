package org.cyverse.mesa.egress.injector.github;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.bench.BenchmarkBase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the branch rule costs on a push body, as the proxy reads it (16 KiB chunks, each copied
 * out as the gate does): {@code forcePush=true} reads only the command list; {@code false} reads
 * the pack behind it for fast-forwards (every object inflated). The pack is the machine's git's
 * own ({@code git pack-objects}) for an update of 8 MiB over 20 commits: {@code kind=text}
 * (source-like, compresses about 4:1) or {@code random} (does not compress). Time per push body.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PushCheckBenchmark extends BenchmarkBase {

    @Param({"true", "false"})
    public boolean forcePush;

    @Param({"text", "random"})
    public String kind;

    private byte[] body;
    private String oldId;
    private BranchRule rule;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Path dir = Files.createTempDirectory("push-check-bench");
        git(dir, "init", "-q", "-b", "main");
        Files.writeString(dir.resolve("README"), "base\n");
        git(dir, "add", "README");
        git(dir, "commit", "-qm", "base");
        oldId = git(dir, "rev-parse", "HEAD");
        Random random = new Random(5);
        for (int i = 0; i < 20; i++) {
            byte[] data = new byte[(8 << 20) / 20];
            if (kind.equals("random")) {
                random.nextBytes(data);
            } else {
                for (int j = 0; j < data.length; j++) {
                    data[j] = (byte) "    return value + offset; // the loop of step \n".charAt((j + random.nextInt(3)) % 48);
                }
            }
            Files.write(dir.resolve("file-" + i), data);
            git(dir, "add", "file-" + i);
            git(dir, "commit", "-qm", "step " + i);
        }
        String newId = git(dir, "rev-parse", "HEAD");
        Process pack = new ProcessBuilder("git", "-C", dir.toString(), "pack-objects", "--stdout", "--revs", "--thin").start();
        pack.getOutputStream().write((newId + "\n^" + oldId + "\n").getBytes(StandardCharsets.US_ASCII));
        pack.getOutputStream().close();
        byte[] packBytes = pack.getInputStream().readAllBytes();
        if (pack.waitFor() != 0) {
            throw new IllegalStateException("git pack-objects failed");
        }
        String line = oldId + " " + newId + " refs/heads/agent/job-17\0report-status side-band-64k\n";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(String.format("%04x", line.length() + 4).getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(line.getBytes(StandardCharsets.ISO_8859_1));
        out.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(packBytes);
        body = out.toByteArray();
        rule = new BranchRule(List.of("agent/job-17"), forcePush);
        if (check() != PushCheck.Outcome.ALLOWED) {
            throw new IllegalStateException("the benchmark's push must be allowed: " + check());
        }
    }

    @Benchmark
    public PushCheck.Outcome check() {
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", rule).start();
        for (int at = 0; at < body.length; at += 16384) {
            if (check.outcome() == PushCheck.Outcome.ALLOWED) {
                break; // the gate copies and reads nothing more once the push is allowed
            }
            int n = Math.min(16384, body.length - at);
            byte[] copy = new byte[n];
            System.arraycopy(body, at, copy, 0, n);
            check.feed(copy, 0, n);
        }
        return check.finish();
    }

    private static String git(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=b", "-c", "user.email=b@example.org", "-C", dir.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", args) + ": " + out);
        }
        return out;
    }

}
