package org.cyverse.mesa.egress.proxy.body;

import io.netty.handler.codec.http.HttpObject;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamListener;

/**
 * The upstream's answer kept from the client while a request may still be refused at its body's
 * end (a push whose pack is read for fast-forwards): git http-backend writes its answer's head
 * before it has read the pack, and once that head had gone to the client the proxy's refusal
 * could only cut the answer short. What arrives meanwhile (at most one read: nothing more is read
 * until the answer goes on) is replayed, in order, once the request was sent, or released when it
 * was refused. Everything but the answer itself passes at once. Confined to the client's event loop.
 */
final class EarlyAnswer implements UpstreamListener {

    private final UpstreamListener exchange;
    private final ArrayDeque<HttpObject> kept = new ArrayDeque<>();
    private boolean waiting;
    private boolean flushKept;

    EarlyAnswer(UpstreamListener exchange) {
        this.exchange = exchange;
    }

    /** From now on the answer waits. */
    void hold() {
        waiting = true;
    }

    /** Whether the answer waits now. */
    boolean holding() {
        return waiting;
    }

    /** The request was sent whole: what was kept goes to the exchange. */
    void release() {
        waiting = false;
        HttpObject msg;
        while ((msg = kept.poll()) != null) {
            exchange.onResponse(msg);
        }
        if (flushKept) {
            flushKept = false;
            exchange.flushResponse();
        }
    }

    /** The request was refused: what was kept is dropped. */
    void discard() {
        waiting = false;
        kept.forEach(ReferenceCountUtil::release);
        kept.clear();
    }

    @Override
    public void onResponse(HttpObject msg) {
        if (waiting) {
            kept.add(msg);
        } else {
            exchange.onResponse(msg);
        }
    }

    @Override
    public void flushResponse() {
        if (waiting) {
            flushKept = true;
        } else {
            exchange.flushResponse();
        }
    }

    @Override
    public void upstreamClosed() {
        exchange.upstreamClosed();
    }

    @Override
    public void upstreamIdle() {
        exchange.upstreamIdle();
    }

    @Override
    public void upstreamTlsFailed(Throwable cause) {
        exchange.upstreamTlsFailed(cause);
    }
}
