package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.ProxyState;

/**
 * An HTTP/2 connection to an upstream (ALPN chose {@code h2}), shared by the requests of the
 * client connection that dialed it: each request is a stream of its own, opened on it
 * ({@link #open}). It carries requests only for the canonical destination it was dialed (and
 * vetted) for, and only while the upstream lets it: not after a GOAWAY, not past the streams
 * its SETTINGS allow at once. Confined to its event loop, the client connection's.
 */
public final class Http2Upstream implements UpstreamConnection {

    private final Channel parent;
    private final Http2Connection connection;
    private final String authority;
    /** Streams opened on it and not yet closed (one whose head waits for its body's scan counts, unlike Netty's active streams). */
    private int open;

    Http2Upstream(Channel parent, Http2Connection connection, Destination destination) {
        this.parent = parent;
        this.connection = connection;
        this.authority = destination.authority();
    }

    /** Whether a new stream for {@code destination} can be opened on it now. */
    public boolean carries(Destination destination) {
        return usable() && authority.equals(destination.authority()) && open < connection.local().maxActiveStreams();
    }

    /** Whether a stream is open on it: it is not idle then, however long the upstream is quiet. */
    boolean streamsOpen() {
        return open > 0;
    }

    /** Whether the connection is still up (it may be draining after a GOAWAY). */
    public boolean connected() {
        return parent.isActive();
    }

    /** Whether it can still carry streams at all (it is open, and neither side said GOAWAY). */
    boolean usable() {
        return parent.isActive() && !connection.goAwayReceived() && !connection.goAwaySent();
    }

    /**
     * Opens a stream for one request to {@code destination}; {@code teTrailers}: the client said
     * it takes trailers ({@code TE: trailers}, which gRPC servers look for), so the stream says so.
     */
    public Future<UpstreamLink> open(ProxyState state, Destination destination, boolean teTrailers) {
        UpstreamHandler handler = new UpstreamHandler();
        Promise<UpstreamLink> link = parent.eventLoop().newPromise();
        new Http2StreamChannelBootstrap(parent)
                .option(ChannelOption.AUTO_READ, false)
                // A write that fails (the upstream reset the stream after answering) must not close the
                // stream under the answer still queued on it: it closes once that was read.
                .option(ChannelOption.AUTO_CLOSE, false)
                .handler(UpstreamPipelines.upstreamStream(state, handler, teTrailers))
                .open()
                .addListener((Future<Http2StreamChannel> f) -> {
                    if (f.isSuccess()) {
                        open++;
                        f.getNow().closeFuture().addListener(closed -> open--);
                        link.trySuccess(UpstreamLink.stream(f.getNow(), handler, destination));
                    } else {
                        link.tryFailure(new DialFailure(Refusals.of(Reason.UPSTREAM_UNREACHABLE, destination.host(), state.profile(),
                                "cannot open an HTTP/2 stream: " + f.cause())));
                    }
                });
        return link;
    }

    @Override
    public void close() {
        parent.close();
    }
}
