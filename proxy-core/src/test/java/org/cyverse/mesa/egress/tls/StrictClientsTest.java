package org.cyverse.mesa.egress.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The clients agents run (the JDK, Python with {@code VERIFY_X509_STRICT}, curl, Node, git) accept
 * the leaves, verifying chain and host name against the CA alone; and each one refuses when the
 * name is wrong or the CA is not trusted, which shows the acceptance is a real verification. The
 * home-made CAs of {@link NonConformantCa} show that the extensions are what strict clients need.
 */
class StrictClientsTest {

    @TempDir
    static Path dir;

    private static EventLoopGroup group;
    private static ExecutorService mintExecutor;
    private static Path caFile;
    private static Path bareCaFile;
    private static Path looseCaFile;
    private static TlsTestServer byName;
    private static TlsTestServer byIp;
    private static TlsTestServer wrongName;
    private static TlsTestServer bareCa;
    private static TlsTestServer looseCa;
    private static InterceptionCa ca;

    @BeforeAll
    static void start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        mintExecutor = Executors.newSingleThreadExecutor();
        ca = InterceptionCa.create(dir.resolve("ca"));
        caFile = dir.resolve("ca").resolve(InterceptionCa.CERT_FILE);
        LeafCertificates leaves = new LeafCertificates(ca, mintExecutor, () -> {}, false);
        byName = TlsTestServer.start(group, context(leaves, "localhost"));
        byIp = TlsTestServer.start(group, context(leaves, "127.0.0.1"));
        wrongName = TlsTestServer.start(group, context(leaves, "wrong-name.example"));

        InterceptionCa bare = NonConformantCa.withoutExtensions();
        bareCaFile = Files.write(dir.resolve("bare.pem"), bare.pem());
        bareCa = TlsTestServer.start(group, context(new LeafCertificates(bare, mintExecutor, () -> {}, false), "localhost"));
        InterceptionCa loose = NonConformantCa.withLooseExtensions();
        looseCaFile = Files.write(dir.resolve("loose.pem"), loose.pem());
        looseCa = TlsTestServer.start(group, context(new LeafCertificates(loose, mintExecutor, () -> {}, false), "localhost"));
    }

    private static SslContext context(LeafCertificates leaves, String host) throws Exception {
        return leaves.serverContext(Destination.parse(host, 443)).get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        for (TlsTestServer server : List.of(byName, byIp, wrongName, bareCa, looseCa)) {
            server.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        mintExecutor.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(TlsClient.class)
    void acceptsTheLeafForAHostName(TlsClient client) throws Exception {
        TlsClient.Outcome outcome = client.fetch("localhost", byName.port(), caFile);
        assertTrue(outcome.ok(), client + " refused: " + outcome.diagnostics());
        assertTrue(outcome.out().contains(client.expectedOutput()), client + " printed: " + outcome.out());
    }

    @ParameterizedTest
    @EnumSource(TlsClient.class)
    void acceptsTheLeafForAnIpAddress(TlsClient client) throws Exception {
        TlsClient.Outcome outcome = client.fetch("127.0.0.1", byIp.port(), caFile);
        assertTrue(outcome.ok(), client + " refused: " + outcome.diagnostics());
        assertTrue(outcome.out().contains(client.expectedOutput()), client + " printed: " + outcome.out());
    }

    @ParameterizedTest
    @EnumSource(TlsClient.class)
    void refusesALeafNamingAnotherHost(TlsClient client) throws Exception {
        // Host name verification is on: a SAN for another name must not pass for localhost.
        TlsClient.Outcome outcome = client.fetch("localhost", wrongName.port(), caFile);
        assertTrue(client.refusedTheCertificate(outcome), client + " accepted a leaf for wrong-name.example as localhost, or failed otherwise: " + outcome.diagnostics());
        assertFalse(outcome.out().contains(client.expectedOutput()));
    }

    @ParameterizedTest
    @EnumSource(TlsClient.class)
    void refusesWhenTheCaIsNotTrusted(TlsClient client) throws Exception {
        // The chain is verified: with only its default trust store, the client must refuse.
        TlsClient.Outcome outcome = client.fetch("localhost", byName.port(), null);
        assertTrue(client.refusedTheCertificate(outcome), client + " accepted a leaf without trusting the CA, or failed otherwise: " + outcome.diagnostics());
        assertFalse(outcome.out().contains(client.expectedOutput()));
    }

    @ParameterizedTest
    @EnumSource(value = TlsClient.class, names = {"JDK", "PYTHON", "CURL", "NODE"})
    void refusesACaThatDoesNotSayItIsACa(TlsClient client) throws Exception {
        // OpenSSL and the JDK want the trust anchor itself to say it is a CA. GnuTLS (git) trusts
        // an anchor whatever its extensions, so git is left out: CaConformanceTest covers it.
        TlsClient.Outcome outcome = client.fetch("localhost", bareCa.port(), bareCaFile);
        assertTrue(client.refusedTheCertificate(outcome), client + " accepted a CA without basicConstraints, or failed otherwise: " + outcome.diagnostics());
    }

    @Test
    void pythonStrictRefusesACaWithoutKeyUsageOrCriticalBasicConstraints() throws Exception {
        // The failure a peer project hit with Python 3.13: its CA lacked these extensions.
        TlsClient.Outcome outcome = TlsClient.PYTHON.fetch("localhost", looseCa.port(), looseCaFile);
        assertTrue(TlsClient.PYTHON.refusedTheCertificate(outcome), "Python's strict mode accepted a CA without keyUsage: " + outcome.diagnostics());
        assertTrue(outcome.diagnostics().contains("Basic Constraints of CA cert not marked critical")
                || outcome.diagnostics().contains("CA cert does not include key usage extension"), outcome.diagnostics());
    }

    @ParameterizedTest
    @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
    void offersOnlyHttp11AndSendsTheChainOfLeafAndCa(String protocol) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) ssl.getSocketFactory().createSocket("localhost", byName.port())) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            parameters.setApplicationProtocols(new String[] {"h2", "http/1.1"});
            parameters.setProtocols(new String[] {protocol});
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            assertEquals("http/1.1", socket.getApplicationProtocol());
            assertEquals(protocol, socket.getSession().getProtocol());
            Certificate[] chain = socket.getSession().getPeerCertificates();
            assertEquals(2, chain.length);
            assertArrayEquals(ca.certificate().getEncoded(), chain[1].getEncoded());
        }
    }

    @Test
    void curlNegotiatesHttp11WhenTheLeafOffersOnlyThat() throws Exception {
        TlsClient.Outcome outcome = TlsClient.run(List.of("curl", "-sS", "--max-time", "10", "--noproxy", "*",
                "--cacert", caFile.toString(), "-o", "/dev/null", "-w", "%{http_version}",
                "https://localhost:" + byName.port() + "/"), Map.of());
        assertTrue(outcome.ok(), outcome.diagnostics());
        assertEquals("1.1", outcome.out());
    }
}
