package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testkit.TouchRecorder;
import org.junit.jupiter.api.Test;

/** limits.max_connections, header_timeout and idle_timeout, and the upstream answer timeout. */
class LimitsAndTimeoutsTest {

    @Test
    void connectionsOverTheLimitGet503Overloaded() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nlimits:\n  max_connections: 2\n");
                RawHttp first = new RawHttp(proxy.port());
                RawHttp second = new RawHttp(proxy.port())) {
            // Both are served (and so surely counted) before the third connects.
            assertEquals(403, first.send("GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n").read().status());
            assertEquals(403, second.send("GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n").read().status());
            try (RawHttp third = new RawHttp(proxy.port())) {
                RawHttp.Response refused = third.read();
                assertEquals(503, refused.status());
                assertEquals("overloaded", refused.header("X-Mesa-Egress-Reason"));
                assertTrue(refused.body().contains("max_connections"), refused.body());
                assertTrue(third.closedByPeer(2000));
            }
            // The two within the limit stay usable.
            assertEquals(403, first.send("GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n").read().status());
        }
    }

    @Test
    void aClosedConnectionFreesItsSlot() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nlimits:\n  max_connections: 1\n")) {
            for (int i = 0; i < 3; i++) {
                try (RawHttp raw = new RawHttp(proxy.port())) {
                    assertEquals(403, raw.send("GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n")
                            .read().status(), "connection " + i);
                    assertTrue(raw.closedByPeer(2000));
                }
                Thread.sleep(50); // the close reaches the proxy's event loop
            }
            assertTrue(proxy.admin("/metrics").body().contains("mesa_egress_active_connections 0.0"));
        }
    }

    @Test
    void aSilentNewConnectionIsClosedAfterTheHeaderTimeout() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nlimits:\n  header_timeout: 300ms\n  idle_timeout: 1m\n");
                RawHttp raw = new RawHttp(proxy.port())) {
            long start = System.nanoTime();
            assertTrue(raw.closedByPeer(5000), "closed without a word");
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis >= 250 && millis < 4000, "closed after " + millis + " ms");
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\nlimits:\n  header_timeout: 5s\n  idle_timeout: 300ms\n");
                RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(403, raw.send("GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n").read().status());
            long start = System.nanoTime();
            assertTrue(raw.closedByPeer(5000));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis >= 250 && millis < 4000, "closed after " + millis + " ms");
        }
    }

    @Test
    void anUpstreamThatNeverAnswersIs504() throws Exception {
        try (TouchRecorder silent = new TouchRecorder("127.0.0.1");
                ProxyFixture proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + silent.port() + "]\n"
                        + "network:\n  allow_private: [\"127.0.0.1/32\"]\nlimits:\n  idle_timeout: 400ms\n"
                        + "  upstream_first_byte_timeout: 800ms\n"); // the answer never begins: the first-byte timeout
                RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET http://127.0.0.1:" + silent.port() + "/ HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals(504, response.status());
            assertEquals("upstream_timeout", response.header("X-Mesa-Egress-Reason"));
            assertEquals(1, silent.connections());
            assertTrue(silent.bytes() > 0, "the request went out");
        }
    }
}
