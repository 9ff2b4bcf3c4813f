package org.cyverse.mesa.egress.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.cyverse.mesa.egress.allowlist.Destination;

/**
 * TLS toward upstreams of intercepted connections: the chain is verified against the system trust
 * plus {@code tls.upstream_ca}, and the host name (or IP address) against the certificate, as a
 * browser would (endpoint identification "HTTPS"). There is no fallback: a failure is a 502
 * {@code upstream_tls_error}.
 */
public final class UpstreamTls {

    private final SslContext http1;
    private final SslContext http2;
    private final X509TrustManager trust;

    private UpstreamTls(SslContext http1, SslContext http2, X509TrustManager trust) {
        this.http1 = http1;
        this.http2 = http2;
        this.trust = trust;
    }

    /**
     * @param extraCaFile PEM certificates trusted in addition to the system's, or {@code null}
     * @throws IOException naming the file when it cannot be read or holds no certificate
     */
    public static UpstreamTls create(Path extraCaFile) throws IOException {
        try {
            // One trust manager for both contexts: the JDK builds its validator over the anchors
            // (some 150 system certificates) on its first check, once instead of once per context.
            TrustManagerFactory trust = trustManagerFactory(anchors(extraCaFile));
            return new UpstreamTls(context(trust, ApplicationProtocolNames.HTTP_1_1),
                    context(trust, ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1), x509(trust));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up upstream TLS: " + e.getMessage(), e);
        }
    }

    /**
     * A client context configured as the upstream ones are, but trusting {@code anchor} alone: for
     * {@link TlsWarmUp}'s handshake with a leaf of the interception CA, which no upstream trusts.
     */
    static SslContext warmUpContext(X509Certificate anchor) throws GeneralSecurityException, IOException {
        return context(trustManagerFactory(List.of(anchor)), ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1);
    }

    /**
     * Checks {@code chain} with the upstream trust manager, without a host name, and says whether
     * it passed: {@link TlsWarmUp} calls it with a chain no upstream trusts, so that the JDK builds
     * the validator it keeps for later checks before an agent's request waits for it.
     */
    boolean trusts(X509Certificate[] chain) {
        try {
            trust.checkServerTrusted(chain, "ECDHE_ECDSA");
            return true;
        } catch (java.security.cert.CertificateException e) {
            return false;
        }
    }

    private static TrustManagerFactory trustManagerFactory(List<X509Certificate> anchors) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int i = 0;
        for (X509Certificate anchor : anchors) {
            store.setCertificateEntry("anchor-" + i++, anchor);
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory;
    }

    private static X509TrustManager x509(TrustManagerFactory factory) {
        for (var manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager x509) {
                return x509;
            }
        }
        throw new IllegalStateException("the JDK's trust manager factory gave no X.509 trust manager");
    }

    /** A client context with {@code trust}, offering {@code protocols} in ALPN (a server that picks none gets HTTP/1.1). */
    private static SslContext context(TrustManagerFactory trust, String... protocols) throws javax.net.ssl.SSLException {
        return SslContextBuilder.forClient()
                .sslProvider(TlsProvider.configured())
                .protocols("TLSv1.3", "TLSv1.2")
                .trustManager(trust)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocols))
                .build();
    }

    /**
     * A JDK {@link javax.net.ssl.SSLContext} with the same trust (the system's plus {@code extraCaFile}),
     * for the proxy's own calls made with the JDK HttpClient (minting credentials).
     */
    public static javax.net.ssl.SSLContext jdkContext(Path extraCaFile) throws IOException {
        try {
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(null, trustManagerFactory(anchors(extraCaFile)).getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS for the proxy's own calls: " + e.getMessage(), e);
        }
    }

    /** The system's trust anchors plus every certificate of {@code extraCaFile} ({@code null}: none). */
    private static List<X509Certificate> anchors(Path extraCaFile) throws IOException, GeneralSecurityException {
        List<X509Certificate> anchors = new ArrayList<>(systemAnchors());
        if (extraCaFile != null) {
            Collection<? extends Certificate> extra;
            try (InputStream in = Files.newInputStream(extraCaFile)) {
                extra = CertificateFactory.getInstance("X.509").generateCertificates(in);
            }
            if (extra.isEmpty()) {
                throw new IOException(extraCaFile + " (tls.upstream_ca) holds no PEM certificate");
            }
            for (Certificate c : extra) {
                anchors.add((X509Certificate) c);
            }
        }
        return anchors;
    }

    private static List<X509Certificate> systemAnchors() throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init((KeyStore) null);
        List<X509Certificate> anchors = new ArrayList<>();
        for (var manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager) {
                anchors.addAll(List.of(((X509TrustManager) manager).getAcceptedIssuers()));
            }
        }
        return anchors;
    }

    /**
     * A client handler for {@code destination}: SNI for names (the JDK sends none for IP
     * literals, as RFC 6066 section 3 asks), and the name or IP address verified against the
     * certificate. ALPN offers {@code h2} before {@code http/1.1} when {@code offerHttp2}.
     */
    public SslHandler newHandler(ByteBufAllocator alloc, Destination destination, boolean offerHttp2) {
        return new SslHandler(newEngine(offerHttp2 ? http2 : http1, alloc, destination.host(), destination.port()));
    }

    /** A client engine of {@code context} for {@code host}, verifying the name or address against the certificate. */
    static SSLEngine newEngine(SslContext context, ByteBufAllocator alloc, String host, int port) {
        SSLEngine engine = context.newEngine(alloc, host, port);
        SSLParameters params = engine.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(params);
        return engine;
    }
}
