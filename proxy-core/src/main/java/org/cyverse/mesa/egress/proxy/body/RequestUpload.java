package org.cyverse.mesa.egress.proxy.body;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.List;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.proxy.exchange.ExchangeOwner;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamListener;

/**
 * One request's way upstream, the head and the body: the head waits while the body is held for
 * its scan ({@link RequestBodyGate}); once released, the body streams with backpressure, each
 * chunk taken from the client only after the previous one was written. Tells its
 * {@link Listener} (the exchange) what happened; confined to the client channel's event loop.
 */
public final class RequestUpload {

    /** What the upload reports to the exchange. */
    public interface Listener {
        /** Writing to the upstream failed. */
        void uploadFailed();

        /** The last body chunk was written. */
        void uploadComplete();

        /** The gate stopped the body; {@code sent} whether part of the request had gone upstream. */
        void bodyRefused(BodyFinding finding, boolean sent);
    }

    /** Held with the head until scanned, the next chunk may be taken, one (the last) is being written, all sent. */
    private enum State { HOLDING, READY, WRITING, WRITING_LAST, SENT }

    private final ExchangeOwner owner;
    private final HttpRequest outgoing;
    private final RequestBodyGate gate;
    private final Listener listener;
    private State state;
    private Channel upstream;
    private boolean closed;
    /** Where the upstream's answer waits while a push may still be refused at its end (read once all was written), or null. */
    private EarlyAnswer early;
    /** The body's last byte while its end is not yet scanned (a scanned body with a Content-Length). */
    private final LengthEndHold lengthEnd;
    /** What the gate held, once released: sent before anything more is taken from the client. */
    private final ArrayDeque<HttpContent> released = new ArrayDeque<>();
    /** Streamed chunks kept while a check waits for an answer from elsewhere. */
    private final WaitingChunks parked;

    /**
     * @param gate what scans, holds and rewrites the body, or {@code null} (no body, or nothing to do to it)
     * @param loop the client channel's event loop
     */
    public RequestUpload(ExchangeOwner owner, HttpRequest outgoing, RequestBodyGate gate, Listener listener, EventExecutor loop) {
        this.owner = owner;
        this.parked = new WaitingChunks(loop);
        this.outgoing = outgoing;
        this.gate = gate;
        this.listener = listener;
        this.state = gate != null && gate.holding() ? State.HOLDING : State.READY;
        this.lengthEnd = new LengthEndHold(gate != null && !gate.rewrites() ? HttpUtil.getContentLength(outgoing, -1L) : -1L);
    }

    /** What the upstream's answers go to: {@code exchange}, through an {@link EarlyAnswer} when a check holds the body (a push). */
    public UpstreamListener answersTo(UpstreamListener exchange) {
        early = gate != null && gate.holdsForChecks() ? new EarlyAnswer(exchange) : null;
        return early != null ? early : exchange;
    }

    /** Whether the head and the body wait for the scan. */
    boolean holding() {
        return state == State.HOLDING;
    }

    /**
     * Answers {@code 100 Continue} to a client that waits for it while its body is held: the body
     * is read before the head leaves, so the upstream's 100 would never come.
     */
    public void continueIfHeld(ChannelHandlerContext client, HttpRequest request) {
        if (state == State.HOLDING && HttpUtil.is100ContinueExpected(request)) {
            outgoing.headers().remove(HttpHeaderNames.EXPECT);
            client.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
        }
    }

    /** Whether the whole request has been written. */
    public boolean sent() {
        return state == State.SENT;
    }

    /** Whether the last chunk is being written now. */
    public boolean writingLast() {
        return state == State.WRITING_LAST;
    }

    /**
     * Prepares the head for {@code destination} and sends it on {@code channel} (with what was held
     * of the body) now, or once the scan has seen enough.
     *
     * @param credentialHost whether the answer will be read for echoed secrets
     */
    public void attach(Channel channel, Destination destination, boolean tls, boolean credentialHost) {
        upstream = channel;
        UpstreamHead.prepare(outgoing, destination, tls, credentialHost, gate != null && gate.rewrites());
        if (state != State.HOLDING || gate.holdComplete()) {
            sendHead();
        } // else the head waits until the scan has seen the body (or the bound)
    }

    /** Whether the next request body chunk can be taken now. */
    public boolean wantsBody() {
        if (gate != null && gate.waiting()) {
            return false;
        }
        if (state == State.HOLDING) {
            return !closed && !gate.holdComplete();
        }
        return !closed && upstream != null && state == State.READY && released.isEmpty();
    }

    /** One chunk of the client's body (consumed). */
    public void body(HttpContent content) {
        if (gate == null) {
            send(content);
            return;
        }
        try {
            content = gate.rewritten(content); // re-signed chunks go on as they are checked: only those whose signatures were the client's
        } catch (BodyCheck.Refused e) {
            listener.bodyRefused(new BodyFinding.Checked(e.refusal()), state != State.HOLDING);
            return;
        }
        BodyFinding finding;
        try {
            finding = gate.inspect(content);
        } catch (RuntimeException e) {
            content.release(); // a check that broke: the chunk goes nowhere, the exchange fails on
            throw e;
        }
        proceed(finding, content);
    }

    /**
     * What follows a chunk's inspection ({@code content}, consumed), or a waiting check's answer
     * ({@code resumed}, with the chunk parked, if any): the body is refused, dropped, held, parked
     * while a check waits, or sent; a resumed body asks for more when nothing else will.
     */
    private void proceed(BodyFinding finding, HttpContent content) {
        if (finding != null || state == State.HOLDING && !gate.dropping() && !gate.reserve(content)) {
            content.release();
            if (early != null && finding != null) {
                early.discard();
            }
            listener.bodyRefused(finding != null ? finding : new BodyFinding.Overloaded(), finding != null && state != State.HOLDING);
        } else if (gate.dropping()) {
            content.release();
        } else if (state == State.HOLDING) {
            gate.hold(content);
            if (gate.waiting()) {
                await();
            } else if (gate.holdComplete() && upstream != null) {
                sendHead();
            }
        } else if (gate.waiting()) {
            parked.park(content);
            await();
        } else {
            send(gate.outgoing(content));
        }
    }

    private void await() {
        parked.await(gate.awaiting(), this::answered);
    }

    /** The checks that waited can say more: the body is refused, or goes on where it stopped. */
    private void answered() {
        if (closed) {
            return;
        }
        BodyFinding finding = gate.resume();
        if (finding != null || gate.dropping()) {
            parked.release();
            if (finding != null) {
                if (early != null) {
                    early.discard();
                }
                listener.bodyRefused(finding, state != State.HOLDING);
                return;
            }
        } else if (gate.waiting()) {
            await();
            return;
        } else if (state == State.HOLDING && gate.holdComplete() && upstream != null) {
            sendHead();
            return;
        }
        HttpContent chunk;
        while ((chunk = parked.poll()) != null) {
            released.add(gate.outgoing(chunk));
        }
        HttpContent first = released.poll();
        if (first != null) {
            send(first); // the rest one by one, each once the one before was written
        } else {
            owner.bodyWanted();
        }
    }

    /**
     * Sends the head, with what was held of the body. The head goes out with the first body chunk
     * when that is already here (one write for a GET: the head and its empty end), and on its own
     * otherwise (a client waiting for 100 Continue).
     */
    private void sendHead() {
        List<HttpContent> held = state == State.HOLDING ? gate.release() : List.of();
        state = State.READY;
        upstream.write(outgoing).addListener(f -> {
            if (!f.isSuccess() && !closed) {
                listener.uploadFailed();
            }
        });
        // An interim 100 Continue or an early answer may come before the body is sent; but while a
        // push may still be refused at its end, the upstream's answer (git http-backend writes its
        // head at once) waits unread, so that the refusal, not a cut answer, is what git shows.
        if (early != null && gate.judgedAtEnd()) {
            early.hold(); // a read left pending on a reused connection may still bring the answer's head
        } else {
            upstream.read();
        }
        released.addAll(held);
        HttpContent first = released.poll();
        if (first != null) {
            send(first); // the rest one by one, each once the one before was written
        } else {
            owner.bodyWanted();
            upstream.flush();
        }
    }

    /** Writes one body chunk upstream; the next is taken once it is written. */
    private void send(HttpContent content) {
        content = lengthEnd.apply(content);
        boolean last = content instanceof LastHttpContent;
        state = last ? State.WRITING_LAST : State.WRITING;
        upstream.writeAndFlush(content).addListener(f -> {
            if (closed) {
                return;
            }
            if (!f.isSuccess()) {
                state = State.READY;
                listener.uploadFailed();
                return;
            }
            state = last ? State.SENT : State.READY;
            if (last && early != null && early.holding()) {
                early.release();
                upstream.read();
            }
            if (last) {
                listener.uploadComplete();
            }
            HttpContent next = released.poll();
            if (next != null) {
                send(next);
                return;
            }
            owner.bodyWanted();
        });
    }

    /** The exchange is over: nothing more is sent, and what the gate holds is released. */
    public void close() {
        closed = true;
        if (early != null) {
            early.discard();
        }
        HttpContent c;
        while ((c = released.poll()) != null) {
            c.release();
        }
        parked.release();
        if (gate != null) {
            gate.close();
        }
        lengthEnd.close();
    }
}
