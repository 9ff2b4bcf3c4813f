package org.cyverse.mesa.egress.proxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Plain-http forwarding through the real proxy to a real upstream on loopback. */
class ForwardProxyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private WireMockServer upstream;
    private ProxyFixture proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        upstream.start();
        upstream.stubFor(get("/hello?x=1").willReturn(aResponse().withStatus(200).withHeader("Content-Type", "text/plain").withBody("hi there")));
        upstream.stubFor(post("/upload").willReturn(aResponse().withStatus(201).withBody("stored")));
        proxy = ProxyFixture.start("profile: P2\n"
                + "allow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n");
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        upstream.stop();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + upstream.port() + path;
    }

    @Test
    void allowedRequestIsForwardedWithTheUpstreamsAnswer() throws Exception {
        HttpResponse<String> response = proxy.client().send(HttpRequest.newBuilder(URI.create(url("/hello?x=1"))).build(),
                HttpResponse.BodyHandlers.ofString());

        assertEquals(200, response.statusCode());
        assertEquals("hi there", response.body());
        upstream.verify(getRequestedFor(urlEqualTo("/hello?x=1")).withHeader("Host", equalTo("127.0.0.1:" + upstream.port())));
    }

    @Test
    void postBodyArrivesIntact() throws Exception {
        HttpResponse<String> response = proxy.client().send(HttpRequest.newBuilder(URI.create(url("/upload")))
                .POST(HttpRequest.BodyPublishers.ofString("payload-123")).build(), HttpResponse.BodyHandlers.ofString());

        assertEquals(201, response.statusCode());
        assertEquals("stored", response.body());
        upstream.verify(postRequestedFor(urlEqualTo("/upload")).withRequestBody(equalTo("payload-123")));
    }

    @Test
    void hopByHopAndProxyHeadersDoNotReachTheUpstream() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET " + url("/hello?x=1") + " HTTP/1.1\r\n"
                    + "Host: evil.example\r\n"
                    + "Proxy-Authorization: Basic c2VjcmV0\r\n"
                    + "Proxy-Connection: keep-alive\r\n"
                    + "Connection: X-Drop-Me\r\n"
                    + "X-Drop-Me: 1\r\n"
                    + "X-Keep: 2\r\n\r\n").read();
            assertEquals(200, response.status());
        }
        upstream.verify(getRequestedFor(urlEqualTo("/hello?x=1"))
                .withHeader("Host", equalTo("127.0.0.1:" + upstream.port()))
                .withHeader("Proxy-Authorization", absent())
                .withHeader("Proxy-Connection", absent())
                .withHeader("X-Drop-Me", absent())
                .withHeader("X-Keep", equalTo("2")));
    }

    @Test
    void refusedHostGets403WithReasonHintAndNothingIsSent() throws Exception {
        HttpResponse<String> response = proxy.client().send(HttpRequest.newBuilder(URI.create("http://example.org/x")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertEquals(403, response.statusCode());
        assertEquals("host_not_allowed", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
        JsonNode body = JSON.readTree(response.body());
        assertEquals("host_not_allowed", body.get("reason").asText());
        assertEquals("example.org", body.get("host").asText());
        assertEquals("P2", body.get("profile").asText());
        assertTrue(body.get("hint").asText().contains("allow"), body.toString());
        assertFalse(body.get("error").asText().isEmpty());
        assertTrue(upstream.getAllServeEvents().isEmpty());
    }

    @Test
    void aRefusedUploadIsAnsweredNotReset() throws Exception {
        // The proxy refuses on the head while the client is still sending 4 MiB, as a simple
        // client (Python's http.client, a shell script) sends it: the whole body, then it reads.
        // The proxy must read and drop the rest until the client is done; closing with unread
        // input would reset the connection, and the client would fail on its write ("broken
        // pipe") without ever seeing the reason and the hint.
        byte[] upload = new byte[4 * 1024 * 1024];
        for (int round = 0; round < 3; round++) {
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", proxy.port())) {
                socket.setSoTimeout(10_000);
                var out = socket.getOutputStream();
                out.write(("POST http://example.org/upload HTTP/1.1\r\nHost: example.org\r\nContent-Length: " + upload.length
                        + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                out.write(upload);
                out.flush();
                String answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(answer.startsWith("HTTP/1.1 403 "), answer);
                assertTrue(answer.contains("X-Mesa-Egress-Reason: host_not_allowed") || answer.contains("x-mesa-egress-reason: host_not_allowed"),
                        answer);
                assertTrue(answer.contains("\"hint\""), answer);
            }
        }
    }

    @Test
    void refusedPortGets403PortNotAllowed() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            HttpResponse<String> response = proxy.client().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + other.getLocalPort() + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, response.statusCode());
            assertEquals("port_not_allowed", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertTrue(JSON.readTree(response.body()).get("hint").asText().contains(String.valueOf(other.getLocalPort())));
        }
    }

    @Test
    void keepAliveReusesTheClientConnection() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            for (int i = 0; i < 3; i++) {
                RawHttp.Response response = raw.send("GET " + url("/hello?x=1") + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertEquals(200, response.status(), "request " + i);
                assertEquals("hi there", response.body());
            }
            // A refusal keeps the connection too when the request had no body.
            assertEquals(403, raw.send("GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n").read().status());
            assertEquals(200, raw.send("GET " + url("/hello?x=1") + " HTTP/1.1\r\nHost: x\r\n\r\n").read().status());
        }
        assertEquals(4, upstream.getAllServeEvents().size());
    }

    @Test
    void upstreamDownIs502UpstreamUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            closedPort = s.getLocalPort();
        }
        try (ProxyFixture p = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + closedPort + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n")) {
            HttpResponse<String> response = p.client().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + closedPort + "/")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(502, response.statusCode());
            assertEquals("upstream_unreachable", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertNotNull(JSON.readTree(response.body()).get("hint"));
        }
    }

    @Test
    void originFormRequestGets400WithProxyHint() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
            assertEquals(400, response.status());
            assertEquals("bad_request", response.header("X-Mesa-Egress-Reason"));
            assertTrue(response.body().contains("HTTP_PROXY"), response.body());
        }
    }

    @Test
    void auditRecordHasEveryFieldAndNoQueryString() throws Exception {
        proxy.client().send(HttpRequest.newBuilder(URI.create(url("/hello?x=1"))).build(), HttpResponse.BodyHandlers.ofString());
        proxy.client().send(HttpRequest.newBuilder(URI.create("http://example.org/secret?token=abc")).build(),
                HttpResponse.BodyHandlers.ofString());

        List<JsonNode> records = proxy.awaitAudit(2);
        JsonNode allowed = records.get(0);
        for (String field : List.of("ts", "profile", "client", "mode", "method", "scheme", "host", "port", "path", "decision",
                "reason", "rule", "credential", "status", "bytes_up", "bytes_down", "duration_ms")) {
            assertTrue(allowed.has(field), "missing " + field + " in " + allowed);
        }
        assertTrue(allowed.get("ts").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"), allowed.toString());
        assertEquals("P2", allowed.get("profile").asText());
        assertTrue(allowed.get("client").asText().startsWith("127.0.0.1:"));
        assertEquals("forward", allowed.get("mode").asText());
        assertEquals("GET", allowed.get("method").asText());
        assertEquals("http", allowed.get("scheme").asText());
        assertEquals("127.0.0.1", allowed.get("host").asText());
        assertEquals(upstream.port(), allowed.get("port").asInt());
        assertEquals("/hello", allowed.get("path").asText());
        assertEquals("allow", allowed.get("decision").asText());
        assertEquals("allowed", allowed.get("reason").asText());
        assertEquals("allow[0]: 127.0.0.1", allowed.get("rule").asText());
        assertTrue(allowed.get("credential").isNull());
        assertEquals(200, allowed.get("status").asInt());
        assertEquals(8, allowed.get("bytes_down").asLong());

        JsonNode denied = records.get(1);
        assertEquals("deny", denied.get("decision").asText());
        assertEquals("host_not_allowed", denied.get("reason").asText());
        assertEquals(403, denied.get("status").asInt());
        assertEquals("/secret", denied.get("path").asText());
        assertFalse(proxy.auditText().contains("token=abc"), proxy.auditText());
    }

    @Test
    void metricsCountTrafficByDecisionReasonAndMode() throws Exception {
        proxy.client().send(HttpRequest.newBuilder(URI.create(url("/hello?x=1"))).build(), HttpResponse.BodyHandlers.ofString());
        proxy.client().send(HttpRequest.newBuilder(URI.create("http://example.org/")).build(), HttpResponse.BodyHandlers.ofString());
        proxy.awaitAudit(2);

        HttpResponse<String> metrics = proxy.admin("/metrics");
        assertEquals(200, metrics.statusCode());
        String text = metrics.body();
        assertTrue(text.contains("mesa_egress_requests_total{decision=\"allow\",mode=\"forward\",reason=\"allowed\"} 1.0"), text);
        assertTrue(text.contains("mesa_egress_requests_total{decision=\"deny\",mode=\"forward\",reason=\"host_not_allowed\"} 1.0"), text);
        assertTrue(text.contains("mesa_egress_bytes_total{direction=\"down\"} 8.0"), text);
        assertTrue(text.contains("mesa_egress_request_duration_seconds_count 2"), text);
        assertTrue(text.contains("mesa_egress_active_connections"), text);
        assertEquals(200, proxy.admin("/healthz").statusCode());
        assertEquals(200, proxy.admin("/readyz").statusCode());
    }

    @Test
    void anyUnstubbedPathStillReachesUpstream() throws Exception {
        upstream.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(404)));
        HttpResponse<String> response = proxy.client().send(HttpRequest.newBuilder(URI.create(url("/missing"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, response.statusCode());
        assertTrue(response.headers().firstValue("X-Mesa-Egress-Reason").isEmpty(), "an upstream 404 is not a refusal");
    }
}
