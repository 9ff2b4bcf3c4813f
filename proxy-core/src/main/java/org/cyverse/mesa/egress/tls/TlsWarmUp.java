package org.cyverse.mesa.egress.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * One TLS handshake in memory, between a leaf's server context and a client context configured as
 * the upstream ones are (but trusting the interception CA), run in the background once the
 * proxy listens (issue 19). No socket, no audit record, no metric.
 *
 * <p>Why: the first use of the JDK's certificate checks in a process reads the ICU data behind
 * host-name matching ({@code java.net.IDN}) and name normalisation, builds the validator over the
 * trust anchors, and runs Netty's engine code for the first time, all interpreted: about 30 ms of
 * CPU on the event loop, measured with a profile of the first intercepted request of a fresh
 * start, while the agent's request waited. Done here, it happens while the agent's container is
 * still starting. The upstream trust manager is also asked once about the CA alone
 * ({@link UpstreamTls#trusts}), which builds its own validator; it keeps no other state.
 */
public final class TlsWarmUp {

    /** A handshake takes four or five flights; a bound for an engine that stops making progress. */
    private static final int MAX_ROUNDS = 16;

    private TlsWarmUp() {}

    /**
     * Handshakes a client for {@code host} with {@code leaf} (a server context of {@code ca}'s),
     * sends a record each way and closes; whether all of it succeeded.
     */
    public static boolean handshake(SslContext leaf, InterceptionCa ca, String host, UpstreamTls upstream)
            throws GeneralSecurityException, IOException {
        upstream.trusts(new X509Certificate[] {ca.certificate()});
        SslContext clientContext = UpstreamTls.warmUpContext(ca.certificate());
        SSLEngine client = UpstreamTls.newEngine(clientContext, ByteBufAllocator.DEFAULT, host, 443);
        SSLEngine server = leaf.newEngine(ByteBufAllocator.DEFAULT);
        try {
            return exchange(client, server);
        } finally {
            ReferenceCountUtil.release(client);
            ReferenceCountUtil.release(server);
            ReferenceCountUtil.release(clientContext);
        }
    }

    private static boolean exchange(SSLEngine client, SSLEngine server) throws SSLException {
        int packet = Math.max(client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
        int app = Math.max(client.getSession().getApplicationBufferSize(), server.getSession().getApplicationBufferSize());
        ByteBuffer toServer = ByteBuffer.allocate(4 * packet);
        ByteBuffer toClient = ByteBuffer.allocate(4 * packet);
        ByteBuffer clientIn = ByteBuffer.allocate(2 * app);
        ByteBuffer serverIn = ByteBuffer.allocate(2 * app);
        ByteBuffer none = ByteBuffer.allocate(0);
        client.beginHandshake();
        server.beginHandshake();
        for (int round = 0; round < MAX_ROUNDS && !(handshaken(client) && handshaken(server)); round++) {
            step(client, none, toServer, toClient, clientIn);
            step(server, none, toClient, toServer, serverIn);
        }
        if (!handshaken(client) || !handshaken(server)) {
            return false;
        }
        // One record each way: the paths of a request and its answer.
        step(client, ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)), toServer, toClient, clientIn);
        step(server, ByteBuffer.wrap("HTTP/1.1 204 \r\n\r\n".getBytes(StandardCharsets.US_ASCII)), toClient, toServer, serverIn);
        step(client, none, toServer, toClient, clientIn);
        boolean exchanged = serverIn.position() > 0 && clientIn.position() > 0;
        client.closeOutbound();
        step(client, none, toServer, toClient, clientIn);
        return exchanged;
    }

    /** Writes what {@code engine} has to send ({@code data}, or handshake records) to {@code out}, then reads what {@code in} holds. */
    private static void step(SSLEngine engine, ByteBuffer data, ByteBuffer out, ByteBuffer in, ByteBuffer app) throws SSLException {
        engine.wrap(data, out);
        runTasks(engine);
        in.flip();
        while (in.hasRemaining() && engine.unwrap(in, app).bytesConsumed() > 0) {
            runTasks(engine);
        }
        runTasks(engine);
        in.compact();
    }

    private static void runTasks(SSLEngine engine) {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private static boolean handshaken(SSLEngine engine) {
        HandshakeStatus status = engine.getHandshakeStatus();
        return status == HandshakeStatus.NOT_HANDSHAKING || status == HandshakeStatus.FINISHED;
    }
}
