package org.cyverse.mesa.egress.tls;

import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.bench.BenchmarkBase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the first intercepted connection to a host pays for its certificate, against every later
 * one: {@code coldMint} asks {@link LeafCertificates#serverContext} for a host it has never seen
 * (a leaf signed by the interception CA, then a Netty server context around it); {@code cacheHit}
 * asks for the same host again. Minting runs on the calling thread (a direct executor), so the
 * numbers are the work itself, without the hand-off to the proxy's background pool. The host names
 * are certificate subjects only; nothing is resolved.
 */
@State(Scope.Benchmark)
public class LeafCertificatesBenchmark extends BenchmarkBase {

    private Path dir;
    private LeafCertificates leaves;
    private final AtomicLong issued = new AtomicLong();
    private long nextHost;
    private Destination cached;

    @Setup
    public void setUp() throws IOException, InvalidDestinationException {
        dir = Files.createTempDirectory("mesa-egress-bench-ca");
        leaves = new LeafCertificates(InterceptionCa.create(dir), Runnable::run, issued::incrementAndGet);
        cached = Destination.parse("cached.example.org", 443);
        leaves.serverContext(cached).join();
        leaves.serverContext(cached).join();
        if (issued.get() != 1) {
            throw new IllegalStateException("expected one leaf for two asks of one host, got " + issued.get());
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public SslContext coldMint() throws InvalidDestinationException {
        // Past LeafCertificates.MAX_HOSTS the cache also evicts, as it would for an agent walking many hosts.
        return leaves.serverContext(Destination.parse("h" + nextHost++ + ".example.org", 443)).join();
    }

    @Benchmark
    public SslContext cacheHit() {
        return leaves.serverContext(cached).join();
    }
}
