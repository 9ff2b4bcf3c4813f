package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** HTTP/1.1 semantics through the proxy: chunked bodies, HEAD, upstream keep-alive, IPv6, HTTP/1.0. */
class ForwardSemanticsTest {

    private HttpServer upstream;
    private final Set<Integer> upstreamClientPorts = ConcurrentHashMap.newKeySet();
    private ProxyFixture proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.createContext("/", this::echo);
        upstream.start();
        proxy = ProxyFixture.start("profile: P2\nallow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.getAddress().getPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n");
    }

    /** Answers the method, the path and the request body it received, with a Content-Length. */
    private void echo(HttpExchange exchange) throws IOException {
        upstreamClientPorts.add(exchange.getRemoteAddress().getPort());
        byte[] body = exchange.getRequestBody().readAllBytes();
        byte[] answer = (exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + new String(body)).getBytes();
        exchange.getResponseHeaders().add("X-Upstream", "yes");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
            return;
        }
        exchange.sendResponseHeaders(200, answer.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
        }
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        upstream.stop(0);
    }

    private String base() {
        return "http://127.0.0.1:" + upstream.getAddress().getPort();
    }

    @Test
    void chunkedRequestBodyArrivesWhole() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("POST " + base() + "/c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n").read();
            assertEquals(200, response.status());
            assertEquals("POST /c hello world", response.body());
        }
    }

    @Test
    void headResponseHasNoBodyAndTheConnectionStaysUsable() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response head = raw.send("HEAD " + base() + "/h HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals(200, head.status());
            assertEquals("yes", head.header("X-Upstream"));
            RawHttp.Response next = raw.send("GET " + base() + "/after HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals("GET /after ", next.body());
        }
    }

    @Test
    void theUpstreamConnectionIsReusedAcrossRequests() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            for (int i = 0; i < 5; i++) {
                assertEquals("GET /r" + i + " ", raw.send("GET " + base() + "/r" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read().body());
            }
        }
        assertEquals(1, upstreamClientPorts.size(), "five requests on one client connection used one upstream connection");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET " + base() + "/p1 HTTP/1.1\r\nHost: x\r\n\r\nGET " + base() + "/p2 HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals("GET /p1 ", raw.read().body());
            assertEquals("GET /p2 ", raw.read().body());
        }
    }

    @Test
    void http10ClientWithoutKeepAliveGetsItsAnswerAndAClose() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET " + base() + "/old HTTP/1.0\r\n\r\n").read();
            assertEquals(200, response.status());
            assertEquals("close", response.header("Connection"));
            assertEquals("GET /old ", response.body());
            assertTrue(raw.closedByPeer(2000));
        }
    }

    @Test
    void anIpv6UpstreamIsReachedThroughItsLiteral() throws Exception {
        HttpServer v6 = HttpServer.create(new InetSocketAddress("::1", 0), 4);
        v6.createContext("/", this::echo);
        v6.start();
        int port = v6.getAddress().getPort();
        try (ProxyFixture p = ProxyFixture.start("profile: P2\nallow:\n  - host: \"::1\"\n    ports: [" + port + "]\n"
                + "network:\n  allow_private: [\"::1/128\"]\n");
                RawHttp raw = new RawHttp(p.port())) {
            RawHttp.Response response = raw.send("GET http://[0:0:0:0:0:0:0:1]:" + port + "/six HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertEquals(200, response.status());
            assertEquals("GET /six ", response.body());
            assertEquals("::1", p.awaitAudit(1).get(0).get("host").asText());
        } finally {
            v6.stop(0);
        }
    }

    @Test
    void requestTargetsThatAreNotHttpAreRefused() throws Exception {
        for (String target : List.of("ftp://example.org/", "https://example.org/", "http://user@example.org/", "http:///nohost")) {
            try (RawHttp raw = new RawHttp(proxy.port())) {
                RawHttp.Response response = raw.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertEquals(400, response.status(), target);
                assertEquals("bad_request", response.header("X-Mesa-Egress-Reason"), target);
            }
        }
    }
}
