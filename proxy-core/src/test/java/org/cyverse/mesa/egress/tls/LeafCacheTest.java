package org.cyverse.mesa.egress.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.cache.Ticker;
import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Leaves are minted once per host, off the calling thread, and minted again once the cache entry expires. */
class LeafCacheTest {

    private static final InterceptionCa CA = InterceptionCa.generate(Instant.now());

    private final AtomicInteger issued = new AtomicInteger();
    private final Set<Thread> mintingThreads = ConcurrentHashMap.newKeySet();
    private final ExecutorService minter = Executors.newFixedThreadPool(4, r -> new Thread(r, "test-minter"));

    private final Runnable onIssued = () -> {
        issued.incrementAndGet();
        mintingThreads.add(Thread.currentThread());
    };

    @AfterEach
    void stop() {
        minter.shutdownNow();
    }

    private static Destination destination(String host, int port) throws Exception {
        return Destination.parse(host, port);
    }

    @Test
    void oneHostIsMintedOnceWhateverThePortAndAnotherHostAgain() throws Exception {
        LeafCertificates leaves = new LeafCertificates(CA, minter, onIssued);
        SslContext first = leaves.serverContext(destination("example.org", 443)).get(10, TimeUnit.SECONDS);
        SslContext second = leaves.serverContext(destination("example.org", 8443)).get(10, TimeUnit.SECONDS);
        assertSame(first, second);
        assertEquals(1, issued.get());

        SslContext other = leaves.serverContext(destination("example.com", 443)).get(10, TimeUnit.SECONDS);
        assertNotSame(first, other);
        assertEquals(2, issued.get());
        assertTrue(first.isServer());
    }

    @Test
    void mintingRunsOnTheExecutorNeverOnTheCaller() throws Exception {
        // A queue instead of threads: nothing runs until the test says so.
        ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();
        LeafCertificates leaves = new LeafCertificates(CA, queued::add, onIssued);

        CompletableFuture<SslContext> a = leaves.serverContext(destination("example.org", 443));
        CompletableFuture<SslContext> b = leaves.serverContext(destination("example.org", 443));
        assertFalse(a.isDone() || b.isDone(), "serverContext must return before minting");
        assertEquals(0, issued.get());
        assertEquals(1, queued.size(), "two first requests for one host share one mint");

        Thread runner = new Thread(() -> queued.forEach(Runnable::run), "test-minter");
        runner.start();
        runner.join(10_000);
        assertSame(a.get(10, TimeUnit.SECONDS), b.get(10, TimeUnit.SECONDS));
        assertEquals(1, issued.get());
        assertEquals(Set.of(runner), mintingThreads);
    }

    @Test
    void concurrentFirstRequestsForOneHostMintOnce() throws Exception {
        LeafCertificates leaves = new LeafCertificates(CA, minter, onIssued);
        int callers = 16;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService callerPool = Executors.newFixedThreadPool(callers);
        try {
            List<CompletableFuture<SslContext>> contexts = new ArrayList<>();
            List<java.util.concurrent.Future<CompletableFuture<SslContext>>> calls = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                calls.add(callerPool.submit(() -> {
                    go.await();
                    return leaves.serverContext(destination("api.example.org", 443));
                }));
            }
            go.countDown();
            for (var call : calls) {
                contexts.add(call.get(10, TimeUnit.SECONDS));
            }
            SslContext first = contexts.get(0).get(10, TimeUnit.SECONDS);
            for (CompletableFuture<SslContext> context : contexts) {
                assertSame(first, context.get(10, TimeUnit.SECONDS));
            }
            assertEquals(1, issued.get());
            assertEquals(1, mintingThreads.size());
            assertEquals("test-minter", mintingThreads.iterator().next().getName());
        } finally {
            callerPool.shutdownNow();
        }
    }

    @Test
    void aCallerCancellingItsFutureDoesNotPoisonTheCache() throws Exception {
        LeafCertificates leaves = new LeafCertificates(CA, minter, onIssued);
        leaves.serverContext(destination("example.org", 443)).cancel(true);
        assertTrue(leaves.serverContext(destination("example.org", 443)).get(10, TimeUnit.SECONDS).isServer());
        assertEquals(1, issued.get());
    }

    @Test
    void anEntryExpiresAfter12HoursWellBeforeItsLeaf() throws Exception {
        AtomicLong nanos = new AtomicLong();
        Ticker ticker = nanos::get;
        // A direct executor here: Caffeine starts the entry's clock when the mint completes, and a
        // mint on another thread could complete after this test has already moved the clock on.
        LeafCertificates leaves = new LeafCertificates(CA, Runnable::run, onIssued, ticker);
        SslContext first = leaves.serverContext(destination("example.org", 443)).get(10, TimeUnit.SECONDS);

        nanos.addAndGet(Duration.ofHours(11).toNanos());
        assertSame(first, leaves.serverContext(destination("example.org", 443)).get(10, TimeUnit.SECONDS));
        nanos.addAndGet(Duration.ofHours(1).plusSeconds(1).toNanos());
        assertNotSame(first, leaves.serverContext(destination("example.org", 443)).get(10, TimeUnit.SECONDS));
        assertEquals(2, issued.get());
        assertTrue(LeafCertificates.CACHE_TTL.compareTo(LeafCertificateFactory.VALIDITY.dividedBy(2)) <= 0);
    }
}
