package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.bench.BenchmarkBase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The request-body scan alone: microseconds to scan 1 MiB of one kind of body in 16 KiB chunks (as
 * Netty hands them over), with the needles of {@code credentials} credentials (each a secret and
 * a sentinel, in every spelling the plan lists). The bodies are what agents send: a JSON chat
 * request full of near misses, a form post (every {@code =} and {@code &} a byte some view must
 * step), base64 (an image for a model), random bytes (an upload). Uses only the scanner's public
 * API, so the same source measures the scanner before and after a change (bench/RESULTS-bodyscan.md).
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class BodyScannerBenchmark extends BenchmarkBase {

    private static final int SIZE = 1 << 20;
    private static final int CHUNK = 16 * 1024;

    @Param({"1", "50"})
    public int credentials;

    @Param({"json", "form", "base64", "binary"})
    public String body;

    private ScanPlan plan;
    private byte[] bytes;

    @Setup
    public void setUp() {
        ScanPlan.Builder builder = new ScanPlan.Builder();
        for (int i = 0; i < credentials; i++) {
            builder.add("c" + i, Finding.Kind.SECRET, "sk-bench-REAL-" + i + "-0123456789abcdefghij");
            builder.add("c" + i, Finding.Kind.SENTINEL, "sk-sentinel-" + i);
        }
        plan = builder.build();
        bytes = switch (body) {
            case "json" -> repeat("{\"role\":\"user\",\"content\":\"Please refactor sk-module: the key in config is read by "
                    + "parse_env(); see RFC 4648 base64 QUJDREVGR0g=\\n 50% of \\u00e9 &amp; <b>\"},");
            case "form" -> repeat("field_name=some+value%20with%2Fescapes&other=1&q=sk-benc&x=%3D%3D&html=%26lt%3B&");
            case "base64" -> Base64.getMimeEncoder().encode(random(SIZE * 3 / 4));
            default -> random(SIZE);
        };
        if (plan.newScanner().feed(bytes, 0, bytes.length) != null) {
            throw new IllegalStateException("the " + body + " body must be clean");
        }
    }

    private static byte[] repeat(String unit) {
        StringBuilder sb = new StringBuilder(SIZE + unit.length());
        while (sb.length() < SIZE) {
            sb.append(unit);
        }
        sb.setLength(SIZE);
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(7).nextBytes(b);
        return b;
    }

    @Benchmark
    public long scanOneMiB() {
        BodyScanner scanner = plan.newScanner();
        for (int off = 0; off < bytes.length; off += CHUNK) {
            if (scanner.feed(bytes, off, Math.min(CHUNK, bytes.length - off)) != null) {
                throw new IllegalStateException("a hit in a clean body");
            }
        }
        if (scanner.finish() != null) {
            throw new IllegalStateException("a hit in a clean body");
        }
        return scanner.scanned();
    }
}
