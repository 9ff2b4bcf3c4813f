package org.cyverse.mesa.egress.tls;

import io.netty.handler.ssl.SslContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.cyverse.mesa.egress.allowlist.Destination;

/**
 * Server-side TLS contexts for intercepted destinations: a leaf certificate per destination host
 * (SAN dNSName or iPAddress, extendedKeyUsage serverAuth, authorityKeyIdentifier, short validity,
 * signed by the {@link InterceptionCa}), one EC P-256 key shared by all leaves. Minted on first
 * use on {@code mintExecutor} (never on an event loop) and cached (Caffeine, bounded, expiring
 * well before the certificate does); concurrent first uses of one host mint once.
 */
public final class LeafCertificates {

    /**
     * @param ca the signing CA
     * @param mintExecutor where minting runs
     * @param onIssued called once per minted leaf (the {@code leaf_certificates_issued} metric)
     */
    public LeafCertificates(InterceptionCa ca, Executor mintExecutor, Runnable onIssued) {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * The server context presenting the leaf for {@code destination.host()}, ALPN offering
     * {@code http/1.1}.
     */
    public CompletableFuture<SslContext> serverContext(Destination destination) {
        throw new UnsupportedOperationException("TODO");
    }
}
