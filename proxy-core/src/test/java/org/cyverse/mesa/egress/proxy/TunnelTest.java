package org.cyverse.mesa.egress.proxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.cyverse.mesa.egress.testkit.ClientHellos;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testkit.TouchRecorder;
import org.cyverse.mesa.egress.testkit.TrustAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** CONNECT: opaque tunnels to allowed hosts, refusals before any tunnel, SNI checks. */
class TunnelTest {

    private WireMockServer upstream;
    private TouchRecorder witness;
    private ProxyFixture proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = new WireMockServer(options().dynamicHttpsPort().httpDisabled(true).bindAddress("127.0.0.1"));
        upstream.start();
        upstream.stubFor(get("/secure").willReturn(aResponse().withStatus(200).withBody("over tls")));
        witness = new TouchRecorder("127.0.0.1");
        // The CONNECT answers themselves: refusals are not told inside TLS here (ReadableHttpsRefusalTest is the default).
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  explain_refusals: false\n"
                + "allow:\n"
                + "  - host: \"localhost\"\n    ports: [" + upstream.httpsPort() + ", " + witness.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n");
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        witness.close();
        upstream.stop();
    }

    @Test
    void jdkHttpClientReachesAnAllowedHttpsHostThroughAnOpaqueTunnel() throws Exception {
        HttpClient client = HttpClient.newBuilder()
                .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port())))
                .sslContext(TrustAll.context())
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.httpsPort() + "/secure")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals("over tls", response.body());

        JsonNode record = awaitTunnelRecord();
        assertEquals("tunnel", record.get("mode").asText());
        assertEquals("CONNECT", record.get("method").asText());
        assertEquals("localhost", record.get("host").asText());
        assertEquals("allow", record.get("decision").asText());
        assertEquals(200, record.get("status").asInt());
        assertTrue(record.get("bytes_up").asLong() > 0 && record.get("bytes_down").asLong() > 0, record.toString());
    }

    /** A tunnel's audit record is written when the tunnel closes; closing the proxy closes it. */
    private JsonNode awaitTunnelRecord() throws Exception {
        proxy.server().stop(java.time.Duration.ofMillis(200));
        List<JsonNode> records = proxy.awaitAudit(1);
        return records.get(records.size() - 1);
    }

    @Test
    void refusedConnectIsAnsweredBeforeAnyTunnel() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n").read();
            assertEquals(403, response.status());
            assertTrue(response.statusLine().startsWith("HTTP/1.1 403 host_not_allowed: example.org is not allowed"), response.statusLine());
            assertEquals("host_not_allowed", response.header("X-Mesa-Egress-Reason"));
            assertTrue(response.body().contains("\"hint\""));
            assertTrue(raw.closedByPeer(2000));
        }
    }

    @Test
    void connectToARefusedPortIs403() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("CONNECT localhost:22 HTTP/1.1\r\nHost: localhost:22\r\n\r\n").read();
            assertEquals(403, response.status());
            assertEquals("port_not_allowed", response.header("X-Mesa-Egress-Reason"));
        }
    }

    @Test
    void withoutInterceptionAConnectToAHostWithMethodRulesIsRefused() throws Exception {
        try (ProxyFixture none = ProxyFixture.start("profile: P2\ntls:\n  intercept: none\n"
                + "allow:\n  - host: \"api.example.org\"\n    ports: [443]\n    methods: [GET]\n");
                RawHttp raw = new RawHttp(none.port())) {
            RawHttp.Response response = raw.send("CONNECT api.example.org:443 HTTP/1.1\r\nHost: api.example.org:443\r\n\r\n").read();
            assertEquals(403, response.status());
            assertEquals("method_not_allowed", response.header("X-Mesa-Egress-Reason"));
            assertTrue(response.body().contains("interception"), response.body());
        }
    }

    @Test
    void connectWithoutPortIs400() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("CONNECT localhost HTTP/1.1\r\nHost: localhost\r\n\r\n").read();
            assertEquals(400, response.status());
            assertEquals("bad_request", response.header("X-Mesa-Egress-Reason"));
        }
    }

    @Test
    void sniNamingAnotherHostIsRefusedAndNothingReachesTheUpstream() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response established = raw.send("CONNECT localhost:" + witness.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read();
            assertEquals(200, established.status());
            SSLSocket tls = (SSLSocket) TrustAll.context().getSocketFactory()
                    .createSocket(raw.socket(), "localhost", witness.port(), false);
            SSLParameters params = tls.getSSLParameters();
            params.setServerNames(List.of(new SNIHostName("blocked.example.net")));
            tls.setSSLParameters(params);
            assertThrows(IOException.class, tls::startHandshake);
        }
        List<JsonNode> records = proxy.awaitAudit(1);
        JsonNode record = records.get(records.size() - 1);
        assertEquals("host_mismatch", record.get("reason").asText());
        assertEquals(421, record.get("status").asInt());
        assertEquals("deny", record.get("decision").asText());
        Thread.sleep(100);
        assertEquals(0, witness.bytes(), "no byte of the ClientHello may reach the upstream");
    }

    @Test
    void aTunnelThatCarriesNoTlsIsRefused() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("CONNECT localhost:" + witness.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
            raw.send("GET / HTTP/1.1\r\nHost: elsewhere.example\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertTrue(raw.closedByPeer(2000));
        }
        List<JsonNode> records = proxy.awaitAudit(1);
        assertEquals("bad_request", records.get(records.size() - 1).get("reason").asText());
        assertEquals(0, witness.bytes());
    }

    @Test
    void matchingSniIsRelayed() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("CONNECT localhost:" + upstream.httpsPort() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
            SSLSocket tls = (SSLSocket) TrustAll.context().getSocketFactory()
                    .createSocket(raw.socket(), "localhost", upstream.httpsPort(), false);
            SSLParameters params = tls.getSSLParameters();
            params.setServerNames(List.of(new SNIHostName("LOCALHOST")));
            tls.setSSLParameters(params);
            tls.startHandshake();
            tls.getOutputStream().write("GET /secure HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String answer = new String(tls.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 200") && answer.endsWith("over tls"), answer);
        }
    }

    @Test
    void aServerNameWithAPortIsJudgedByItsHost() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("CONNECT localhost:" + witness.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
            byte[] hello = ClientHellos.withServerName("localhost:" + witness.port());
            raw.send(hello);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (witness.bytes() < hello.length && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(hello.length, witness.bytes(), "the ClientHello was relayed to the CONNECT target");
        }
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("CONNECT localhost:" + witness.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
            long before = witness.bytes();
            raw.send(ClientHellos.withServerName("blocked.example.net:" + witness.port()));
            assertTrue(raw.closedByPeer(2000));
            Thread.sleep(100);
            assertEquals(before, witness.bytes(), "another host with a port is still refused");
        }
        // The same host with another port, or with a trailing dot: the upstream would serve neither as this host.
        for (String name : List.of("localhost:" + (witness.port() + 1), "localhost:x", "localhost.")) {
            try (RawHttp raw = new RawHttp(proxy.port())) {
                assertEquals(200, raw.send("CONNECT localhost:" + witness.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
                long before = witness.bytes();
                raw.send(ClientHellos.withServerName(name));
                assertTrue(raw.closedByPeer(2000), name);
                Thread.sleep(100);
                assertEquals(before, witness.bytes(), name + " was relayed");
            }
        }
    }
}
