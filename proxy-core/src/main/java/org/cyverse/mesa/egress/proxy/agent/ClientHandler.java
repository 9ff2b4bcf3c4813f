package org.cyverse.mesa.egress.proxy.agent;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.admission.RequestFacts;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.body.RequestBodyScan;
import org.cyverse.mesa.egress.proxy.PipelineNames;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.approval.HeldRequests;
import org.cyverse.mesa.egress.proxy.body.RequestBodyGate;
import org.cyverse.mesa.egress.proxy.connection.ConnectionGate;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.connection.RefusalResponses;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;
import org.cyverse.mesa.egress.proxy.exchange.ExchangeOwner;
import org.cyverse.mesa.egress.proxy.http.RejectedHead;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamLink;
import org.cyverse.mesa.egress.proxy.websocket.WebSocketOpening;

/**
 * One client connection while it speaks HTTP: takes each request head in turn, has the
 * {@link org.cyverse.mesa.egress.admission.Admission} decide it, and answers the refusal, hands
 * the request to a {@link ForwardExchange}, or turns the connection into a tunnel
 * ({@link TunnelSetup}). Framing was judged by the decoder; the clocks are {@link ClientTimers}'.
 *
 * <p>Auto-read is off: the next chunk is read only when the previous one has been handled
 * (written upstream, for a body). Requests are handled one at a time; messages the decoder
 * produced from one read wait in a small inbox (bounded by one read).
 */
public final class ClientHandler extends ChannelInboundHandlerAdapter implements ExchangeOwner {

    private enum State {
        /** Waiting for the next request head. */
        READY,
        /** A request is being forwarded: body chunks go to it. */
        FORWARDING,
        /** A CONNECT is being set up, or a WebSocket was accepted: this handler will be replaced. */
        TUNNELING,
        /** A request waits for an approval's decision ({@code approvals.hold}). */
        HELD,
        /** A refusal that ends the connection was written. */
        CLOSING
    }

    private final ProxyContext proxy;
    /** The CONNECT target when this connection is an intercepted tunnel, else {@code null}. */
    private final Destination intercepted;
    private final ArrayDeque<Object> inbox = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private ClientTimers timers;
    private State state = State.READY;
    private ForwardExchange forward;
    private final IdleUpstreams upstreams;
    private HeldRequests.Held held;
    private HttpRequest resumed; // the request taken up again after its hold: never held twice
    private WebSocketOpening upgrading; // the WebSocket the request being forwarded asks for, or null

    /** A handler for a connection to the proxy's listener (forward proxy and CONNECT). */
    public ClientHandler(ProxyContext proxy) {
        this(proxy, null, IdleUpstreams.own(null));
    }

    /**
     * A handler for the decrypted side of an intercepted CONNECT to {@code intercepted} (one
     * HTTP/1.1 connection, or one HTTP/2 stream), with the upstream connections it may reuse: at
     * first the one dialed (and vetted) for the CONNECT.
     */
    ClientHandler(ProxyContext proxy, Destination intercepted, IdleUpstreams upstreams) {
        this.proxy = proxy;
        this.intercepted = intercepted;
        this.upstreams = upstreams;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.timers = (ClientTimers) ctx.pipeline().get(PipelineNames.TIMERS);
        if (intercepted != null && ctx.channel().isActive()) {
            ctx.read(); // added to a live intercepted tunnel: there will be no channelActive
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (ConnectionGate.overLimit(ctx.channel())) {
            answer(Exchange.begin(proxy, ctx.channel(), null), Refusals.of(Reason.OVERLOADED, null, proxy.state().profile(),
                    "limit " + proxy.state().config().limits().maxConnections()), true);
            return;
        }
        ctx.read();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    /** Releases what this handler holds: queued messages, the exchange, the idle upstream. */
    private void release() {
        releaseInbox();
        if (held != null) {
            held.clientGone();
            held = null;
        }
        if (forward != null) {
            forward.clientGone();
            forward = null;
        }
        upstreams.handlerGone();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == State.CLOSING) {
            ReferenceCountUtil.release(msg);
            return;
        }
        inbox.add(msg);
        drain();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ProtocolSwitch.logClientFailure(intercepted, cause);
        ctx.close();
    }

    /** Handles queued messages while the state allows, then asks for more input. */
    private void drain() {
        while (!inbox.isEmpty()) {
            if (state == State.FORWARDING) {
                if (!forward.wantsBody()) {
                    return;
                }
                HttpContent chunk = (HttpContent) inbox.poll();
                if (chunk.decoderResult().isFailure()) {
                    // A body the decoder could not frame (a bad chunk size, a connection closed
                    // mid-chunk) must not end cleanly upstream: the request is abandoned there.
                    Throwable cause = chunk.decoderResult().cause();
                    chunk.release();
                    forward.abandon(Refusals.badRequest(ChunkedFraming.problemOf(cause), String.valueOf(cause.getMessage())));
                    continue;
                }
                forward.body(chunk);
            } else if (state == State.READY) {
                onHead(inbox.poll());
            } else {
                return;
            }
        }
        boolean wantsMore = state == State.FORWARDING ? forward.wantsBody() : state == State.READY;
        if (wantsMore && ctx.channel().isActive()) {
            ctx.read();
        }
    }

    private void onHead(Object msg) {
        if (msg instanceof HttpContent && !(msg instanceof HttpRequest)) {
            ReferenceCountUtil.release(msg); // the end of a request that was already answered
            return;
        }
        timers.busy();
        if (msg instanceof RejectedHead rejected) {
            answer(Exchange.begin(proxy, ctx.channel(), rejected.method()), rejected.refusal(proxy.state().profile()), true);
            return;
        }
        HttpRequest request = (HttpRequest) msg;
        Exchange exchange = Exchange.begin(proxy, ctx.channel(), request.method().name());
        ProxyState snapshot = proxy.state();
        if (intercepted == null && HttpMethod.CONNECT.equals(request.method())) { // inside interception: Admission refuses it
            Verdict verdict = exchange.decide(proxy, snapshot, RequestFacts.connect(request.uri()));
            if (!verdict.allowed()) {
                if (held(verdict, request, exchange)) {
                    return;
                }
                if (RefusalTunnel.opened(proxy, ctx, exchange, verdict)) {
                    state = State.TUNNELING; // the refusal is told inside TLS: this handler will be replaced
                } else {
                    answer(exchange, verdict.refusal(), true);
                }
                return;
            }
            state = State.TUNNELING;
            new TunnelSetup(proxy, ctx, exchange, this, (destination, idle) -> new ClientHandler(proxy, destination, idle))
                    .start(verdict, snapshot);
            return;
        }
        exchange.releasingOnFailure(() -> onRequest(request, exchange, snapshot));
    }

    private void onRequest(HttpRequest request, Exchange exchange, ProxyState snapshot) {
        Verdict verdict = exchange.decide(proxy, snapshot, RequestHeads.facts(request, intercepted));
        if (!verdict.allowed()) {
            if (!held(verdict, request, exchange)) {
                answer(exchange, verdict.refusal(), verdict.unreadable() || RequestHeads.closeAfterRefusal(request));
            }
            return;
        }
        Verdict.Outgoing out = verdict.outgoing();
        RequestBodyGate gate;
        try {
            gate = RequestBodyGate.forRequest(request, out, snapshot, verdict.destination(), (rule, place) -> exchange.dlpAudited(rule, place, proxy.metrics),
                    proxy.holdBudget);
        } catch (RequestBodyScan.UnscannableException e) {
            answer(exchange, Refusals.badRequest(Refusals.Problem.UNSCANNABLE_BODY, e.getMessage()), true);
            return;
        }
        upgrading = WebSocketOpening.of(request, verdict, snapshot);
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !proxy.draining && upgrading == null; // a declined upgrade ends the connection
        state = State.FORWARDING;
        forward = new ForwardExchange(proxy, this, ctx, snapshot, exchange, verdict.destination(), request,
                RequestHeads.outgoing(request, out), intercepted != null, gate, keepAlive);
        forward.start(upstreams);
    }

    /** {@code approvals.hold}: waits for the decision, then takes the request up again as if it had just arrived. */
    private boolean held(Verdict verdict, HttpRequest request, Exchange exchange) {
        held = request == resumed ? null : proxy.held.hold(proxy.state().config(), ctx, verdict, () -> {
            held = null;
            resumed = request;
            state = State.READY;
            onHead(request);
            drain();
        }, () -> exchange.finishRefused(proxy, verdict.refusal()));
        state = held != null ? State.HELD : state;
        return held != null;
    }

    @Override
    public void bodyWanted() {
        drain();
    }

    @Override
    public void completed(UpstreamLink keep, boolean closeClient) {
        forward = null;
        upstreams.put(keep);
        if (closeClient || proxy.draining) {
            state = State.CLOSING;
            ctx.channel().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        state = State.READY;
        timers.idle();
        drain();
    }

    @Override
    public void upgraded(Exchange exchange, UpstreamLink upstream, FullHttpResponse accepted, org.cyverse.mesa.egress.injector.EchoScrubber echo) {
        forward = null;
        state = State.TUNNELING;
        releaseInbox();
        upgrading.open(proxy, ctx, exchange, upstream, accepted, echo); // replaces this handler
    }

    @Override
    public void refuse(Exchange exchange, Refusal refusal, boolean close) {
        forward = null;
        answer(exchange, refusal, close);
        drain();
    }

    /** Answers a refusal; with {@code close} (or while the proxy drains) the connection lingers and closes after it. */
    private void answer(Exchange exchange, Refusal refusal, boolean close) {
        if (close || proxy.draining) {
            state = State.CLOSING;
            releaseInbox();
            RefusalResponses.answer(ctx, proxy, exchange, refusal, true).addListener(f -> timers.linger());
        } else {
            state = State.READY;
            RefusalResponses.answer(ctx, proxy, exchange, refusal, false);
            timers.idle();
        }
    }

    private void releaseInbox() {
        inbox.forEach(ReferenceCountUtil::release);
        inbox.clear();
    }
}
