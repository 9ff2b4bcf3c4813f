package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp2;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stop drains an HTTP/2 connection as it drains an HTTP/1.1 one: GOAWAY NO_ERROR to the agent, the connection closed in time. */
class Http2DrainTest {

    @TempDir
    Path dir;

    @Test
    void aStopSaysGoAwayAndTheConnectionEndsInTime() throws Exception {
        TestPki pki = new TestPki("h2-drain");
        try (HttpsUpstream upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start("profile: P2\n"
                        + "tls:\n  upstream_ca: \"" + pki.writeCaPem(dir.resolve("ca.pem")) + "\"\n  intercept: all\n  http2: true\n"
                        + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n"
                        + "network:\n  allow_private: [\"127.0.0.1/32\"]\n")) {
            proxy.awaitReady(Duration.ofSeconds(5));
            try (RawHttp2 h2 = RawHttp2.intercepted(proxy.port(), "localhost", upstream.port(),
                    TestPki.trusting(proxy.server().ca().certificate()), 0)) {
                h2.frame(RawHttp2.HEADERS, RawHttp2.END_HEADERS | RawHttp2.END_STREAM, 1, h2.requestBlock("GET", "/echo/before-stop")).flush();
                RawHttp2.Frame answer = h2.readUntil(RawHttp2.DATA, 1);
                assertNotNull(answer, "the request before the stop was answered");
                long start = System.nanoTime();
                assertTrue(proxy.server().stop(Duration.ofSeconds(10)), "the HTTP/2 connection did not finish within the drain");
                assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos());
                RawHttp2.Frame goAway = h2.readUntil(RawHttp2.GOAWAY, 0);
                assertNotNull(goAway, "no GOAWAY before the close");
                assertEquals(0, goAway.errorCode(), goAway.debug());
            }
        }
    }
}
