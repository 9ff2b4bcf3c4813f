package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.ProxyState;

/**
 * What one request at a time travels on to its upstream: an HTTP/1.1 connection, kept by a client
 * connection between requests so that keep-alive works on both sides, or one stream of an
 * {@link Http2Upstream}, which carries one request and ends with it. A connection is reused only
 * for the same canonical destination, whose address was vetted when it was dialed.
 */
public final class UpstreamLink implements UpstreamConnection {

    /** The connection, or the HTTP/2 stream. */
    public final Channel channel;
    /** The end of its pipeline, which tells the exchange using it what arrives. */
    public final UpstreamHandler handler;
    private final String authority;
    private final boolean stream;
    private boolean handedOver;

    /** An HTTP/1.1 connection dialed (and vetted) for {@code destination}. */
    public UpstreamLink(Channel channel, UpstreamHandler handler, Destination destination) {
        this(channel, handler, destination, false);
    }

    private UpstreamLink(Channel channel, UpstreamHandler handler, Destination destination, boolean stream) {
        this.channel = channel;
        this.handler = handler;
        this.authority = destination.authority();
        this.stream = stream;
    }

    /** A stream of an HTTP/2 connection: never reused, and closing it resets the stream alone (RST_STREAM). */
    static UpstreamLink stream(Channel stream, UpstreamHandler handler, Destination destination) {
        return new UpstreamLink(stream, handler, destination, true);
    }

    /** Dials {@code destination} for forwarding (verified TLS when {@code tls}): the link once connected. */
    public static Future<UpstreamLink> dial(UpstreamDialer dialer, Destination destination, ProxyState state,
            EventLoop loop, boolean tls) {
        UpstreamHandler handler = new UpstreamHandler();
        Promise<UpstreamLink> link = loop.newPromise();
        dialer.dial(destination, state, loop, UpstreamPipelines.upstream(state, destination, tls, handler))
                .addListener((Future<Channel> f) -> {
            if (f.isSuccess()) {
                if (!link.trySuccess(new UpstreamLink(f.getNow(), handler, destination))) {
                    f.getNow().close();
                }
            } else {
                link.tryFailure(f.cause());
            }
        });
        return link;
    }

    /** Whether this is a stream of an HTTP/2 connection (which ends with its request). */
    public boolean isStream() {
        return stream;
    }

    boolean reusableFor(Destination destination) {
        return !stream && channel.isActive() && authority.equals(destination.authority());
    }

    /** {@code idle} when it can carry a request to {@code destination}; otherwise closes it: {@code null}. */
    public static UpstreamLink takeFor(UpstreamLink idle, Destination destination) {
        if (idle != null && idle.reusableFor(destination)) {
            return idle;
        }
        if (idle != null) {
            idle.close();
        }
        return null;
    }

    /** Parks the connection: nothing should arrive now, and anything that does closes it. */
    public void park() {
        handler.listener = null;
        channel.read();
    }

    /** The connection belongs to a {@link org.cyverse.mesa.egress.proxy.websocket.WebSocketSession} from now on, which closes it (with a close frame first). */
    public void handOver() {
        handler.listener = null;
        handedOver = true;
    }

    /** Closes it, unless it was handed over to a WebSocket. */
    public void closeUnlessHandedOver() {
        if (!handedOver) {
            close();
        }
    }

    @Override
    public void close() {
        handler.listener = null;
        channel.close();
    }

    /**
     * Closes with a TCP reset: a request whose body was partly sent is cut off there, and neither
     * a Content-Length nor a last chunk ever tells the upstream it was complete. A stream is
     * reset (RST_STREAM CANCEL), never ended with END_STREAM.
     */
    public void reset() {
        handler.listener = null;
        if (stream) {
            channel.close();
            return;
        }
        try {
            channel.config().setOption(ChannelOption.SO_LINGER, 0);
        } catch (RuntimeException e) {
            // A transport without SO_LINGER: the close below still ends the body short.
        }
        channel.close();
    }
}
