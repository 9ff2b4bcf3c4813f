package org.cyverse.mesa.egress.proxy.tunnel;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;

/**
 * An established opaque CONNECT tunnel: two channels relaying bytes, one audit record when it
 * ends. Confined to the client channel's event loop.
 */
public final class Tunnel {

    private static final Logger LOG = Logger.getLogger(Tunnel.class.getName());

    private final ProxyContext proxy;
    private final Exchange exchange;
    final Channel client;
    final Channel upstream;
    private boolean closed;
    private Refusal refused;

    /** A tunnel for {@code exchange} between {@code client} and {@code upstream}, both connected. */
    public Tunnel(ProxyContext proxy, Exchange exchange, Channel client, Channel upstream) {
        this.proxy = proxy;
        this.exchange = exchange;
        this.client = client;
        this.upstream = upstream;
    }

    void bytes(boolean fromClient, int n) {
        if (fromClient) {
            exchange.bytesUp += n;
        } else {
            exchange.bytesDown += n;
        }
    }

    /**
     * Refuses what the tunnel carries (e.g. a TLS server name that is not the CONNECT target):
     * the 200 has been sent, so the refusal is recorded and both sides closed, nothing relayed.
     */
    public void refuse(Refusal refusal) {
        if (closed) {
            return;
        }
        LOG.info(() -> "tunnel to " + refusal.host() + " refused (" + refusal.reason().code() + "): " + refusal.error());
        refused = refusal;
        client.close();
        upstream.close();
        close();
    }

    /** Ends the tunnel: flushes what is pending on each side, closes both, records it once. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (refused != null) {
            exchange.finishRefused(proxy, refused);
        } else {
            exchange.finishAllowed(proxy, 200);
        }
        flushAndClose(client);
        flushAndClose(upstream);
    }

    private static void flushAndClose(Channel channel) {
        if (channel.isActive()) {
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
