package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.netty.channel.epoll.Epoll;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.Test;

/** The socket transport: epoll on Linux (the image's platforms), NIO when asked for or elsewhere. */
class TransportTest {

    @Test
    void linuxGetsEpollFromThePackagedNativeLibrary() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String arch = System.getProperty("os.arch");
        if (linux && (arch.equals("amd64") || arch.equals("aarch64"))) {
            assertTrue(Epoll.isAvailable(), () -> "the epoll native library did not load: " + Epoll.unavailabilityCause());
            assertEquals("epoll", Transport.configured().name());
        } else {
            assertEquals("nio", Transport.configured().name());
        }
        assertEquals("nio", Transport.choose("nio").name());
        assertEquals("nio", Transport.choose(" NIO ").name());
    }

    @Test
    void theProxyWorksOnNioWhenAskedTo() throws Exception {
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", exchange -> {
            byte[] body = "over nio".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.start();
        String before = System.getProperty("mesa.egress.transport");
        System.setProperty("mesa.egress.transport", "nio");
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\n"
                + "allow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.getAddress().getPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n")) {
            assertTrue(proxy.server().transport().startsWith("nio, "), proxy.server().transport());
            URI uri = URI.create("http://127.0.0.1:" + upstream.getAddress().getPort() + "/x");
            for (int i = 0; i < 3; i++) { // keep-alive on both sides
                HttpResponse<String> response = proxy.client().send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, response.statusCode());
                assertEquals("over nio", response.body());
            }
            assertEquals(3, proxy.awaitAudit(3).size());
        } finally {
            if (before == null) {
                System.clearProperty("mesa.egress.transport");
            } else {
                System.setProperty("mesa.egress.transport", before);
            }
            upstream.stop(0);
        }
    }
}
