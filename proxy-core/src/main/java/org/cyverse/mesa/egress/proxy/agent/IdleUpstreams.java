package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.PromiseNotifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.upstream.Http2Upstream;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamConnection;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamLink;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamProtocolSwitch;
import org.cyverse.mesa.egress.proxy.websocket.WebSocketUpgrade;

/**
 * Upstream connections a client connection keeps between its requests, so that keep-alive works
 * on both sides: one for an HTTP/1.1 connection (its own, closed with it), a few shared by the
 * streams of an HTTP/2 connection (each stream is one request; the connections outlive it and
 * close with the HTTP/2 connection). An upstream that speaks HTTP/2 ({@code tls.http2}) is one
 * {@link Http2Upstream} whose streams carry every request at once. A connection is reused only
 * for the canonical destination it was dialed (and vetted) for. Confined to the client
 * connection's event loop.
 */
final class IdleUpstreams {

    /**
     * Idle links an HTTP/2 connection keeps for its streams: as many as it may have streams at once
     * ({@link AgentPipelines#MAX_CONCURRENT_STREAMS}), so that a client that keeps 50 streams busy reuses
     * 50 upstream connections instead of dialing (and shaking hands) for each request past a smaller
     * pool. The pool only grows to the concurrency the client used, and a parked link closes after
     * {@code limits.idle_timeout}.
     */
    static final int SHARED_MAX = AgentPipelines.MAX_CONCURRENT_STREAMS;

    private final ArrayDeque<UpstreamLink> idle = new ArrayDeque<>();
    private final List<Http2Upstream> http2 = new ArrayList<>(1);
    private final int max;
    private final boolean shared;
    private boolean closed;

    private IdleUpstreams(int max, boolean shared) {
        this.max = max;
        this.shared = shared;
    }

    /** One connection's own: {@code first} (may be {@code null}) is kept until the first request takes it. */
    static IdleUpstreams own(UpstreamConnection first) {
        IdleUpstreams upstreams = new IdleUpstreams(1, false);
        upstreams.put(first);
        return upstreams;
    }

    /** Shared by the streams of one HTTP/2 connection, until {@link #closeAll}. */
    static IdleUpstreams shared(UpstreamConnection first) {
        IdleUpstreams upstreams = new IdleUpstreams(SHARED_MAX, true);
        upstreams.put(first);
        return upstreams;
    }

    /** An idle link that can carry a request to {@code destination}, or {@code null}; idle links for another are closed. */
    UpstreamLink take(Destination destination) {
        while (!idle.isEmpty()) {
            UpstreamLink link = UpstreamLink.takeFor(idle.pollLast(), destination);
            if (link != null) {
                return link;
            }
        }
        return null;
    }

    /**
     * What {@code request} to {@code destination} travels on: an idle connection, a new stream of
     * an HTTP/2 one, or a connection dialed now; over TLS, when {@code tls.http2} is on, offering
     * HTTP/2, except for a WebSocket's handshake (RFC 8441's WebSocket over HTTP/2 is not relayed).
     */
    Future<UpstreamLink> link(ProxyContext proxy, ProxyState state, Destination destination, HttpRequest request, boolean tls,
            EventLoop loop) {
        UpstreamLink reuse = take(destination);
        if (reuse != null) {
            return loop.newSucceededFuture(reuse);
        }
        if (!tls || !state.config().tls().http2() || WebSocketUpgrade.requested(request)) {
            return UpstreamLink.dial(proxy.dialer, destination, state, loop, tls);
        }
        boolean teTrailers = request.headers().containsValue(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS, true);
        http2.removeIf(h2 -> !h2.connected()); // one draining after a GOAWAY stays, to be closed with the rest
        for (Http2Upstream h2 : http2) {
            if (h2.carries(destination)) {
                return h2.open(state, destination, teTrailers);
            }
        }
        Promise<UpstreamLink> link = loop.newPromise();
        UpstreamProtocolSwitch.dial(proxy.dialer, destination, state, loop).addListener((Future<UpstreamConnection> f) -> {
            if (!f.isSuccess()) {
                link.tryFailure(f.cause());
            } else if (f.getNow() instanceof Http2Upstream h2) {
                put(h2); // later requests open their streams on it too
                PromiseNotifier.cascade(h2.open(state, destination, teTrailers), link);
            } else {
                link.setSuccess((UpstreamLink) f.getNow());
            }
        });
        return link;
    }

    /**
     * Keeps {@code connection} for later requests (an HTTP/1.1 link parked); closes it when there
     * is no room or all are closed. A stream is never kept: it ended with its request.
     */
    void put(UpstreamConnection connection) {
        if (connection == null) {
            return;
        }
        if (connection instanceof Http2Upstream h2) {
            if (closed) {
                h2.close();
            } else if (!http2.contains(h2)) {
                http2.add(h2);
            }
            return;
        }
        UpstreamLink link = (UpstreamLink) connection;
        if (closed || idle.size() >= max || link.isStream()) {
            link.close();
        } else {
            idle.addLast(link);
        }
    }

    /** The client handler that used this is gone: its own links close; shared ones stay for the other streams. */
    void handlerGone() {
        if (!shared) {
            closeAll();
        }
    }

    /** Closes every idle link, now and from now on. */
    void closeAll() {
        closed = true;
        idle.forEach(UpstreamLink::close);
        idle.clear();
        http2.forEach(Http2Upstream::close);
        http2.clear();
    }
}
