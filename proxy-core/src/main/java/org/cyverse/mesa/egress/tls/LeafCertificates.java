package org.cyverse.mesa.egress.tls;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLException;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;

/**
 * Server-side TLS contexts for intercepted destinations: a leaf certificate per destination host
 * (SAN dNSName or iPAddress, extendedKeyUsage serverAuth, authorityKeyIdentifier, short validity,
 * signed by the {@link InterceptionCa}), one EC P-256 key shared by all leaves. Minted on first
 * use on {@code mintExecutor} (never on an event loop) and cached (Caffeine, bounded, expiring
 * well before the certificate does); concurrent first uses of one host mint once.
 */
public final class LeafCertificates {

    /** Bounds memory (a context with its leaf is a few KiB) against an agent walking many hosts. */
    static final long MAX_HOSTS = 10_000;

    /** Half the leaf's 24 h: a cached leaf always has at least 12 h left when it is handed out. */
    static final Duration CACHE_TTL = Duration.ofHours(12);

    private static final Logger LOG = Logger.getLogger(LeafCertificates.class.getName());

    private final InterceptionCa ca;
    private final LeafCertificateFactory factory;
    private final Executor mintExecutor;
    private final Runnable onIssued;
    private final ApplicationProtocolConfig alpn;
    /** ALPN {@code http/1.1} alone: for an answer the proxy gives itself, whose text HTTP/1.1's status line carries. */
    private final ApplicationProtocolConfig http1Only;
    // Keyed by host alone: a certificate does not name a port, so one leaf serves them all.
    private final AsyncCache<String, SslContext> contexts;
    private final AtomicBoolean warmedUp = new AtomicBoolean();
    private volatile Destination warmUpDestination;

    /**
     * @param ca the signing CA
     * @param mintExecutor where minting runs
     * @param onIssued called once per minted leaf (the {@code leaf_certificates_issued} metric)
     */
    public LeafCertificates(InterceptionCa ca, Executor mintExecutor, Runnable onIssued) {
        this(ca, mintExecutor, onIssued, true);
    }

    /** @param http2 whether ALPN offers {@code h2} before {@code http/1.1} ({@code tls.http2}) */
    public LeafCertificates(InterceptionCa ca, Executor mintExecutor, Runnable onIssued, boolean http2) {
        this(ca, mintExecutor, onIssued, Ticker.systemTicker(), http2);
    }

    /** With a ticker, so that tests can move the cache's clock. */
    LeafCertificates(InterceptionCa ca, Executor mintExecutor, Runnable onIssued, Ticker ticker) {
        this(ca, mintExecutor, onIssued, ticker, true);
    }

    private LeafCertificates(InterceptionCa ca, Executor mintExecutor, Runnable onIssued, Ticker ticker, boolean http2) {
        // A client that offers neither protocol gets no ALPN answer (NO_ADVERTISE) and may still
        // speak HTTP/1.1; a client that picks something else is not cut off here (ACCEPT): it is
        // spoken to in HTTP/1.1 (ProtocolSwitch's fallback), whose decoder refuses what is not.
        this.http1Only = alpn(ApplicationProtocolNames.HTTP_1_1);
        this.alpn = http2 ? alpn(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1) : http1Only;
        this.ca = Objects.requireNonNull(ca, "ca");
        this.mintExecutor = Objects.requireNonNull(mintExecutor, "mintExecutor");
        this.onIssued = Objects.requireNonNull(onIssued, "onIssued");
        this.factory = new LeafCertificateFactory(ca);
        this.contexts = Caffeine.newBuilder()
                .maximumSize(MAX_HOSTS)
                .expireAfterWrite(CACHE_TTL)
                .ticker(ticker)
                .buildAsync();
    }

    private static ApplicationProtocolConfig alpn(String... protocols) {
        return new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocols);
    }

    /** {@link #serverContext(Destination)} as a Netty future completing on {@code executor}, for a pipeline that waits on it. */
    public io.netty.util.concurrent.Future<SslContext> serverContext(io.netty.util.concurrent.EventExecutor executor, Destination destination) {
        return serverContext(executor, destination, true);
    }

    /**
     * {@link #serverContext(io.netty.util.concurrent.EventExecutor, Destination)}, offering ALPN
     * {@code http/1.1} alone unless {@code http2} (a refusal told inside TLS: its text rides in
     * HTTP/1.1's status line, which HTTP/2 has not).
     */
    public io.netty.util.concurrent.Future<SslContext> serverContext(io.netty.util.concurrent.EventExecutor executor, Destination destination,
            boolean http2) {
        io.netty.util.concurrent.Promise<SslContext> promise = executor.newPromise();
        serverContext(destination, http2 ? alpn : http1Only).whenComplete((context, error) -> {
            if (error != null) {
                promise.tryFailure(error);
            } else {
                promise.trySuccess(context);
            }
        });
        return promise;
    }

    /**
     * Mints the leaves of {@code names} in the background, at most {@value #PREFETCH_LIMIT}, so that
     * the first connection to a credential's host does not wait for its key pair and signature
     * (issue 19: a first intercepted response of a fresh pod). A name that cannot be minted is
     * left to the first connection, which reports it.
     */
    public void prefetch(Collection<String> names) {
        names.stream().distinct().limit(PREFETCH_LIMIT).forEach(name -> {
            try {
                Destination destination = Destination.parse(name, 443);
                serverContext(destination);
                if (warmUpDestination == null) {
                    warmUpDestination = destination;
                }
            } catch (InvalidDestinationException e) {
                // not a name a client can ask for; nothing to prefetch
            }
        });
    }

    /**
     * Once the leaf of the first host {@link #prefetch} was given is minted, runs
     * {@link TlsWarmUp}'s handshake with it on the mint executor; once per instance (later calls,
     * and calls without a prefetched host, do nothing). A failure is logged and changes
     * nothing: the first connection then pays for what the warm-up would have done. The future
     * says whether it completed (tests).
     */
    public CompletableFuture<Boolean> warmUp(UpstreamTls upstream) {
        Destination destination = warmUpDestination;
        if (destination == null || !warmedUp.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(false);
        }
        long started = System.nanoTime();
        return serverContext(destination).thenApplyAsync(leaf -> {
            try {
                boolean done = TlsWarmUp.handshake(leaf, ca, destination.host(), upstream);
                LOG.fine(() -> "TLS warm-up " + (done ? "done" : "stopped short") + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
                return done;
            } catch (Exception e) {
                LOG.log(Level.FINE, "TLS warm-up failed", e);
                return false;
            }
        }, mintExecutor);
    }

    /** Leaves minted ahead at start: one per credential host for a typical job, bounded for a long list. */
    public static final int PREFETCH_LIMIT = 16;

    /**
     * The server context presenting the leaf for {@code destination.host()}, ALPN offering
     * {@code h2} and {@code http/1.1} (only the latter with {@code tls.http2: false}).
     */
    public CompletableFuture<SslContext> serverContext(Destination destination) {
        return serverContext(destination, alpn);
    }

    private CompletableFuture<SslContext> serverContext(Destination destination, ApplicationProtocolConfig protocols) {
        Objects.requireNonNull(destination, "destination");
        // The cache holds the in-flight future: a second caller for the same host joins it. The
        // mint is handed to mintExecutor explicitly (not the cache's executor) so that no Caffeine
        // maintenance task ever queues behind, or ahead of, a mint. A failed mint is evicted by
        // Caffeine, so the next connection tries again.
        String key = protocols == alpn ? destination.host() : destination.host() + " http/1.1"; // one leaf per host and ALPN list
        CompletableFuture<SslContext> shared = contexts.get(key, (host, cacheExecutor) -> {
            try {
                return CompletableFuture.supplyAsync(() -> mint(destination, protocols), mintExecutor);
            } catch (RuntimeException e) { // e.g. RejectedExecutionException while shutting down
                return CompletableFuture.failedFuture(e);
            }
        });
        // A copy: a caller cancelling or completing its future cannot touch the cached one.
        return shared.copy();
    }

    private SslContext mint(Destination destination, ApplicationProtocolConfig protocols) {
        X509Certificate leaf = factory.mint(destination, Instant.now());
        SslContext context;
        try {
            // The chain is leaf then CA, as forServer(key, leaf, ca) would send it; LeafKeyManager
            // says why it is handed over directly.
            LeafKeyManager keys = new LeafKeyManager(factory.key(), leaf, ca.certificate());
            SslProvider provider = TlsProvider.configured();
            // BoringSSL takes the key and chain in its own form: converted once per leaf, not per handshake.
            SslContextBuilder builder = provider == SslProvider.JDK ? SslContextBuilder.forServer(keys)
                    : SslContextBuilder.forServer(new OpenSslCachingX509KeyManagerFactory(keys.asFactory()));
            context = builder
                    .sslProvider(provider)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .applicationProtocolConfig(protocols)
                    .build();
        } catch (SSLException e) {
            throw new CompletionException("cannot build a TLS context for " + destination.host(), e);
        }
        try {
            onIssued.run();
        } catch (RuntimeException e) {
            // A broken metric must not break TLS for the host.
            LOG.log(Level.WARNING, "the leaf-issued callback failed", e);
        }
        return context;
    }
}
