package org.cyverse.mesa.egress.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslContext;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The start's TLS warm-up: a real handshake between a leaf and a client configured as the upstream
 * ones are, with the host name checked, on both TLS providers; it mints nothing of its own and
 * leaves the upstream trust as it was.
 */
class TlsWarmUpTest {

    private static final InterceptionCa CA = InterceptionCa.generate(Instant.now());

    private final ExecutorService minter = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-minter"));
    private final AtomicInteger issued = new AtomicInteger();
    private final String previousProvider = System.getProperty("mesa.egress.tls.provider");

    @AfterEach
    void stop() {
        minter.shutdownNow();
        if (previousProvider == null) {
            System.clearProperty("mesa.egress.tls.provider");
        } else {
            System.setProperty("mesa.egress.tls.provider", previousProvider);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void theWarmUpHandshakesWithThePrefetchedLeafAndMintsNothingMore(String provider) throws Exception {
        System.setProperty("mesa.egress.tls.provider", provider);
        LeafCertificates leaves = new LeafCertificates(CA, minter, issued::incrementAndGet, true);
        UpstreamTls upstream = UpstreamTls.create(null);
        leaves.prefetch(List.of("api.example.org"));

        assertTrue(leaves.warmUp(upstream).get(30, TimeUnit.SECONDS), "handshake and one record each way");
        assertEquals(1, issued.get(), "the warm-up uses the prefetched leaf: leaf_certificates_issued_total counts real hosts only");
        assertFalse(upstream.trusts(new X509Certificate[] {CA.certificate()}), "upstreams still do not trust the interception CA");
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void theWarmUpChecksTheHostNameAsAnUpstreamConnectionDoes(String provider) throws Exception {
        System.setProperty("mesa.egress.tls.provider", provider);
        LeafCertificates leaves = new LeafCertificates(CA, minter, issued::incrementAndGet, true);
        SslContext leaf = leaves.serverContext(Destination.parse("api.example.org", 443)).get(30, TimeUnit.SECONDS);

        assertThrows(SSLException.class, () -> TlsWarmUp.handshake(leaf, CA, "other.example.org", UpstreamTls.create(null)),
                "a leaf for another name must fail the client's check");
    }
}
