package org.cyverse.mesa.egress.proxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.io.IOException;
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * curl, as agents run it, through the proxy. {@code bin/test} (which {@code .ci/run} calls) installs curl where it is missing,
 * so this test never skips.
 */
class CurlClientTest {

    private static WireMockServer upstream;
    private static ProxyFixture proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = new WireMockServer(options().dynamicPort().dynamicHttpsPort().bindAddress("127.0.0.1"));
        upstream.start();
        upstream.stubFor(get("/hello").willReturn(aResponse().withStatus(200).withBody("hi there")));
        proxy = ProxyFixture.start("profile: P2\nallow:\n"
                + "  - host: \"127.0.0.1\"\n    ports: [" + upstream.port() + "]\n"
                + "  - host: \"localhost\"\n    ports: [" + upstream.httpsPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n");
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        upstream.stop();
    }

    private static Curl.Result curl(String... args) throws IOException, InterruptedException {
        return Curl.through(proxy.port(), args);
    }

    @Test
    void curlGetsAnAllowedHttpPage() throws Exception {
        Curl.Result r = curl("http://127.0.0.1:" + upstream.port() + "/hello");
        assertEquals(0, r.exit(), r.err());
        assertEquals("hi there", r.out());
    }

    @Test
    void curlReachesAnAllowedHttpsHostThroughATunnel() throws Exception {
        Curl.Result r = curl("-k", "https://localhost:" + upstream.httpsPort() + "/hello");
        assertEquals(0, r.exit(), r.err());
        assertEquals("hi there", r.out());
    }

    @Test
    void curlShowsTheRefusalWithReasonAndHint() throws Exception {
        Curl.Result r = curl("-i", "http://169.254.169.254/latest/meta-data/");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("HTTP/1.1 403"), r.out());
        assertTrue(r.out().contains("X-Mesa-Egress-Reason: host_not_allowed"), r.out());
        assertTrue(r.out().contains("\"hint\":"), r.out());
    }

    @Test
    void curlShowsTheRefusalOfAnHttpsHostToo() throws Exception {
        java.nio.file.Path ca = java.nio.file.Files.createTempFile("mesa-ca", ".pem");
        try {
            java.nio.file.Files.write(ca, proxy.server().ca().pem());
            Curl.Result r = curl("--cacert", ca.toString(), "-w", "\n%{http_code}", "https://example.org/");
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().contains("\"reason\":\"host_not_allowed\"") && r.out().contains("\"hint\":"), r.out());
            assertTrue(r.out().endsWith("\n403"), r.out());
        } finally {
            java.nio.file.Files.deleteIfExists(ca);
        }
    }

    @Test
    void curlWithoutTheProxysCaFailsOnTheCertificateInstead() throws Exception {
        Curl.Result r = curl("https://example.org/");
        assertEquals(60, r.exit(), "curl's 'peer certificate cannot be authenticated': the agent must trust the proxy's CA: " + r.err());
    }
}
