package org.cyverse.mesa.egress.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.proxy.Transport;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * New connections while the proxy is busy. Each test holds the proxy's one event loop in a task
 * (as a burst of work would) while connections queue in the listen backlog, then lets it go: what
 * the loop does in its next pass is what a busy proxy does between two passes.
 */
class ListenBacklogTest {

    private static final Pattern ACTIVE = Pattern.compile("(?m)^mesa_egress_active_connections (\\S+)$");

    private static final List<String> PROPERTIES = List.of("io.netty.eventLoopThreads", "mesa.egress.transport");

    private final Map<String, String> before = new HashMap<>();

    @BeforeEach
    void oneEventLoop() {
        PROPERTIES.forEach(name -> before.put(name, System.getProperty(name)));
        System.setProperty("io.netty.eventLoopThreads", "1"); // a one-CPU pod's proxy: accept and serve on one loop
    }

    @AfterEach
    void restore() {
        before.forEach((name, value) -> {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "nio"})
    void connectionsWaitingInTheBacklogAreAcceptedManyInOnePass(String transport) throws Exception {
        System.setProperty("mesa.egress.transport", transport);
        try (ProxyFixture proxy = ProxyFixture.start("profile: P2\n")) {
            assertTrue(proxy.server().transport().startsWith(transport), proxy.server().transport());
            EventLoop loop = proxy.server().listener().eventLoop();
            CompletableFuture<Integer> afterOnePass = new CompletableFuture<>();
            List<Socket> clients = new ArrayList<>();
            try {
                holdLoop(loop, () -> {
                    for (int i = 0; i < 40; i++) {
                        clients.add(new Socket(InetAddress.getLoopbackAddress(), proxy.port()));
                    }
                }, () -> afterOnePass.complete(active(proxy)));
                // Netty 4.2's default accepted one per pass on epoll: a pass of a busy loop took
                // milliseconds, and the backlog filled faster than it emptied.
                assertEquals(Transport.ACCEPTS_PER_PASS, afterOnePass.get(10, TimeUnit.SECONDS),
                        "connections accepted in the pass after the loop was free");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (activeNow(proxy, loop) < 40 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(40, activeNow(proxy, loop), "every waiting connection accepted in the passes after");
            } finally {
                for (Socket client : clients) {
                    client.close();
                }
            }
        }
    }

    @Test
    void aConnectThatIsFollowedAtOnceByTheEndOfTheConnectionDialsNothing() throws Exception {
        try (ServerSocket upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                ProxyFixture proxy = ProxyFixture.start("profile: P2\n"
                        + "allow:\n  - host: \"127.0.0.1\"\n    ports: [" + upstream.getLocalPort() + "]\n"
                        + "network:\n  allow_private: [\"127.0.0.1/32\"]\n")) {
            AtomicInteger dialed = new AtomicInteger();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        upstream.accept().close();
                        dialed.incrementAndGet();
                    }
                } catch (java.io.IOException closed) {
                    // the test is over
                }
            });
            acceptor.start();
            String connect = "CONNECT 127.0.0.1:" + upstream.getLocalPort() + " HTTP/1.1\r\nHost: 127.0.0.1:"
                    + upstream.getLocalPort() + "\r\n\r\n";
            // Given up at once, as Go's client gives up a spare dial: the CONNECT and the end arrive together.
            holdLoop(proxy.server().listener().eventLoop(), () -> {
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                    OutputStream out = client.getOutputStream();
                    out.write(connect.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            }, () -> { });
            // The same CONNECT from a client that stays is dialed: the upstream counts dials.
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                client.getOutputStream().write(connect.getBytes(StandardCharsets.US_ASCII));
                byte[] head = new byte[12];
                int n = client.getInputStream().readNBytes(head, 0, head.length);
                assertEquals("HTTP/1.1 200", new String(head, 0, n, StandardCharsets.US_ASCII));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (dialed.get() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(200); // a dial for the first client would have come before the second's
            assertEquals(1, dialed.get(), "upstream connections: the staying client's alone");
            upstream.close();
            acceptor.join(5000);
        }
    }

    /**
     * Holds {@code loop} in a task while {@code whileHeld} runs on this thread, then runs
     * {@code afterNextPass} on the loop once it has been through one pass of I/O.
     */
    private static void holdLoop(EventLoop loop, ThrowingRunnable whileHeld, Runnable afterNextPass) throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        loop.execute(() -> {
            held.countDown();
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // A scheduled task joins the queue at the start of the next run of tasks, after the next I/O pass.
            loop.schedule(afterNextPass, 0, TimeUnit.MILLISECONDS);
        });
        assertTrue(held.await(10, TimeUnit.SECONDS), "the event loop took the task");
        try {
            whileHeld.run();
        } finally {
            done.countDown();
        }
    }

    private static int activeNow(ProxyFixture proxy, EventLoop loop) throws Exception {
        return loop.submit(() -> active(proxy)).get(10, TimeUnit.SECONDS);
    }

    private static int active(ProxyFixture proxy) {
        Matcher m = ACTIVE.matcher(new String(proxy.server().metrics().scrape(), StandardCharsets.UTF_8));
        assertTrue(m.find(), "mesa_egress_active_connections in the metrics");
        return (int) Double.parseDouble(m.group(1));
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
