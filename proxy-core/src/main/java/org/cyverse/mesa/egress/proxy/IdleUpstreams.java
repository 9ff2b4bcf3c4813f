package org.cyverse.mesa.egress.proxy;

import java.util.ArrayDeque;
import org.cyverse.mesa.egress.allowlist.Destination;

/**
 * Upstream connections a client connection keeps between its requests, so that keep-alive works
 * on both sides: one for an HTTP/1.1 connection (its own, closed with it), a few shared by the
 * streams of an HTTP/2 connection (each stream is one request; the connections outlive it and
 * close with the HTTP/2 connection). A link is reused only for the canonical destination it was
 * dialed (and vetted) for. Confined to the client connection's event loop.
 */
final class IdleUpstreams {

    /**
     * Idle links an HTTP/2 connection keeps for its streams: as many as it may have streams at once
     * ({@link Pipelines#MAX_CONCURRENT_STREAMS}), so that a client that keeps 50 streams busy reuses
     * 50 upstream connections instead of dialing (and shaking hands) for each request past a smaller
     * pool. The pool only grows to the concurrency the client used, and a parked link closes after
     * {@code limits.idle_timeout}.
     */
    static final int SHARED_MAX = Pipelines.MAX_CONCURRENT_STREAMS;

    private final ArrayDeque<UpstreamLink> idle = new ArrayDeque<>();
    private final int max;
    private final boolean shared;
    private boolean closed;

    private IdleUpstreams(int max, boolean shared) {
        this.max = max;
        this.shared = shared;
    }

    /** One connection's own: {@code first} (may be {@code null}) is kept until the first request takes it. */
    static IdleUpstreams own(UpstreamLink first) {
        IdleUpstreams upstreams = new IdleUpstreams(1, false);
        upstreams.put(first);
        return upstreams;
    }

    /** Shared by the streams of one HTTP/2 connection, until {@link #closeAll}. */
    static IdleUpstreams shared(UpstreamLink first) {
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

    /** Keeps {@code link} (parked) for a later request; closes it when there is no room or all are closed. */
    void put(UpstreamLink link) {
        if (link == null) {
            return;
        }
        if (closed || idle.size() >= max) {
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
    }
}
