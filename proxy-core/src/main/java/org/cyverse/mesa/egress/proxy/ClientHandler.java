package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * One client connection while it speaks HTTP: takes each request head, decides it (SPEC.md
 * steps 1-4), and either answers a refusal, hands the exchange to a {@link ForwardExchange}, or
 * turns the connection into a tunnel ({@link TunnelSetup}).
 *
 * <p>Auto-read is off: the next chunk is read only when the previous one has been handled
 * (written upstream, for a body). Requests are handled one at a time; messages the decoder
 * produced from one read wait in a small inbox (bounded by one read).
 */
final class ClientHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = Logger.getLogger(ClientHandler.class.getName());
    /** How long a connection closing after a refusal drains the client's input at most. */
    static final long LINGER_MILLIS = 2_000;

    private final ProxyContext proxy;
    /** The CONNECT target when this connection is an intercepted tunnel, else {@code null}. */
    private final Destination intercepted;
    private final ArrayDeque<Object> inbox = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private ForwardExchange forward;
    private UpstreamLink idleUpstream;
    private boolean busy;
    private boolean headStarted;
    /** A refusal that ends the connection has been written: input is only drained until the close. */
    private boolean closing;
    private ScheduledFuture<?> timer;

    /** A handler for a connection to the proxy's listener (forward proxy and CONNECT). */
    ClientHandler(ProxyContext proxy) {
        this(proxy, null, null);
    }

    /**
     * A handler for the decrypted side of an intercepted CONNECT to {@code intercepted}, with the
     * upstream connection that was dialed (and vetted) for the CONNECT, not yet used.
     */
    ClientHandler(ProxyContext proxy, Destination intercepted, UpstreamLink upstream) {
        this.proxy = proxy;
        this.intercepted = intercepted;
        this.idleUpstream = upstream;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (intercepted != null && ctx.channel().isActive()) {
            // Added to a live intercepted tunnel: there will be no channelActive.
            busy = false;
            arm(proxy.state().config().limits().headerTimeout().toMillis(), this::headerTimedOut);
            ctx.read();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (ConnectionGate.overLimit(ctx.channel())) {
            int max = proxy.state().config().limits().maxConnections();
            refuse(newExchange(), Refusals.of(Reason.OVERLOADED, null, profile(), "limit " + max), true);
            return;
        }
        busy = false;
        // A new connection must start its first request within the header timeout: a client
        // that connects and says nothing (slowloris) does not hold a slot for the idle timeout.
        arm(proxy.state().config().limits().headerTimeout().toMillis(), this::headerTimedOut);
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

    /** Releases what this handler holds: queued messages, timers, upstreams. */
    private void release() {
        cancelTimer();
        releaseInbox();
        if (forward != null) {
            forward.clientGone();
            forward = null;
        }
        if (idleUpstream != null) {
            idleUpstream.close();
            idleUpstream = null;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            ctx.read();
            return;
        }
        inbox.add(msg);
        drain();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (closing) {
            return;
        }
        if (evt == StrictRequestDecoder.HEAD_STARTED) {
            headStarted = true;
            if (!busy) {
                arm(proxy.state().config().limits().headerTimeout().toMillis(), this::headerTimedOut);
            }
        } else if (evt == ProxyContext.DRAIN) {
            if (forward == null && !busy && !headStarted) {
                ctx.close();
            }
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (intercepted != null && cause instanceof io.netty.handler.codec.DecoderException
                && cause.getCause() instanceof javax.net.ssl.SSLException) {
            LOG.info(() -> "TLS with the client for " + intercepted.authority() + " failed (" + cause.getCause().getMessage()
                    + "); does the agent trust the interception CA (/ca.pem)?");
        } else {
            LOG.log(Level.FINE, "client connection failed", cause);
        }
        ctx.close();
    }

    /** Handles queued messages while the current state allows, then asks for more input. */
    void drain() {
        while (!inbox.isEmpty()) {
            if (forward != null) {
                if (!forward.wantsBody()) {
                    return;
                }
                forward.body((HttpContent) inbox.poll());
                continue;
            }
            if (busy) {
                return;
            }
            onHead(inbox.poll());
        }
        if (ctx.channel().isActive() && (forward != null ? forward.wantsBody() : !busy)) {
            ctx.read();
        }
    }

    private void onHead(Object msg) {
        if (msg instanceof HttpContent && !(msg instanceof HttpRequest)) {
            ReferenceCountUtil.release(msg); // the end of a request that was already answered
            return;
        }
        cancelTimer();
        headStarted = false;
        Exchange exchange = newExchange();
        if (msg instanceof RejectedHead) {
            RejectedHead rejected = (RejectedHead) msg;
            Refusal refusal = rejected.reason() == Reason.HEADERS_TOO_LARGE
                    ? Refusals.of(Reason.HEADERS_TOO_LARGE, null, profile(), null)
                    : Refusals.badRequest("malformed request: " + rejected.problem(),
                            "send a well-formed HTTP/1.1 request (CRLF line ends, no folded or control characters)");
            refuse(exchange, refusal, true);
            return;
        }
        HttpRequest request = (HttpRequest) msg;
        exchange.method = request.method().name();
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            Refusal refusal = cause instanceof TooLongFrameException
                    ? Refusals.of(Reason.HEADERS_TOO_LARGE, null, profile(), null)
                    : Refusals.badRequest("malformed request: " + cause.getMessage(),
                            "send one unambiguous Content-Length or Transfer-Encoding: chunked, not both");
            ReferenceCountUtil.release(request);
            refuse(exchange, refusal, true);
            return;
        }
        String framingProblem = framingProblem(request);
        if (framingProblem != null) {
            refuse(exchange, Refusals.badRequest("ambiguous request framing: " + framingProblem,
                    "send one unambiguous Content-Length or Transfer-Encoding: chunked"), true);
            return;
        }
        if (HttpMethod.CONNECT.equals(request.method())) {
            busy = true;
            new TunnelSetup(proxy, ctx, exchange, this).start(request.uri());
            return;
        }
        onForward(request, exchange);
    }

    private void onForward(HttpRequest request, Exchange exchange) {
        ProxyState state = proxy.state();
        RequestAdmission admission = new RequestAdmission(state, proxy.metrics, intercepted);
        RequestAdmission.Result result = admission.admit(request, exchange);
        if (result instanceof RequestAdmission.Refused) {
            RequestAdmission.Refused refused = (RequestAdmission.Refused) result;
            refuse(exchange, refused.refusal(), refused.close());
            return;
        }
        RequestAdmission.Admitted admitted = (RequestAdmission.Admitted) result;
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !proxy.draining;
        UpstreamLink reuse = null;
        if (idleUpstream != null && idleUpstream.reusableFor(admitted.destination())) {
            reuse = idleUpstream;
        } else if (idleUpstream != null) {
            idleUpstream.close();
        }
        idleUpstream = null;
        forward = new ForwardExchange(proxy, this, ctx, state, exchange, admitted.destination(), request, admitted.outgoing(),
                intercepted != null, admitted.bodySubstitution(), keepAlive);
        forward.start(reuse);
    }

    /** Called by {@link ForwardExchange} when its exchange is over. */
    void forwardDone(UpstreamLink keep, boolean closeClient) {
        forward = null;
        idleUpstream = keep;
        if (closeClient || proxy.draining) {
            ctx.channel().writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        awaitHead();
        drain();
    }

    /** Called by {@link ForwardExchange} when the upstream failed before answering. */
    void forwardFailed(Exchange exchange, Refusal refusal, boolean close) {
        forward = null;
        refuse(exchange, refusal, close);
        drain();
    }

    /** Answers a refusal; with {@code close} the connection closes after it. */
    void refuse(Exchange exchange, Refusal refusal, boolean close) {
        busy = close;
        if (exchange.host == null) {
            exchange.host = refusal.host();
        }
        if (refusal.rule() != null) {
            exchange.rule = refusal.rule();
        }
        exchange.finish(proxy, false, refusal.reason(), refusal.status().code());
        Future<Void> written = ctx.writeAndFlush(RefusalResponses.render(refusal, profile(), close));
        if (close) {
            written.addListener(f -> lingerAndClose());
        } else {
            awaitHead();
        }
    }

    /**
     * Closes after a refusal without losing it. Closing a socket that still has unread input (the
     * rest of a refused body, a pipelined request) makes the kernel answer with a reset, and a
     * reset can destroy the refusal before the client has read it: the agent would see "connection
     * reset" instead of the reason and the hint. So the output is ended (plain connections: FIN
     * after the answer), and what the client still sends is read and dropped until it closes, for
     * at most {@value #LINGER_MILLIS} ms.
     */
    private void lingerAndClose() {
        Channel channel = ctx.channel();
        if (!channel.isActive()) {
            return;
        }
        closing = true;
        releaseInbox();
        if (intercepted == null && channel instanceof io.netty.channel.socket.SocketChannel) {
            ((io.netty.channel.socket.SocketChannel) channel).shutdownOutput();
        }
        arm(LINGER_MILLIS, ctx::close);
        ctx.read();
    }

    private void releaseInbox() {
        Object m;
        while ((m = inbox.poll()) != null) {
            ReferenceCountUtil.release(m);
        }
    }

    /** A request with both Transfer-Encoding and Content-Length, or a coding other than chunked. */
    private static String framingProblem(HttpRequest request) {
        var headers = request.headers();
        if (!headers.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return null;
        }
        if (headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            return "both Transfer-Encoding and Content-Length";
        }
        var codings = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (codings.size() != 1 || !codings.get(0).trim().equalsIgnoreCase("chunked")) {
            return "Transfer-Encoding other than a single \"chunked\"";
        }
        return null;
    }

    private void awaitHead() {
        busy = false;
        headStarted = false;
        arm(proxy.state().config().limits().idleTimeout().toMillis(), () -> {
            if (!busy && !headStarted && forward == null) {
                ctx.close();
            }
        });
    }

    private void headerTimedOut() {
        if (busy || forward != null || !ctx.channel().isActive()) {
            return;
        }
        if (headStarted) {
            refuse(newExchange(), Refusals.of(Reason.HEADER_TIMEOUT, null, profile(), null), true);
        } else {
            ctx.close(); // nothing was said: nothing to answer
        }
    }

    private void arm(long millis, Runnable task) {
        cancelTimer();
        timer = ctx.executor().schedule(task, millis, TimeUnit.MILLISECONDS);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private Exchange newExchange() {
        return new Exchange(profile(), clientAddress(ctx.channel()));
    }

    private String profile() {
        return proxy.state().profile();
    }

    static String clientAddress(Channel channel) {
        if (channel.remoteAddress() instanceof InetSocketAddress) {
            InetSocketAddress a = (InetSocketAddress) channel.remoteAddress();
            return a.getAddress().getHostAddress() + ":" + a.getPort();
        }
        return String.valueOf(channel.remoteAddress());
    }
}
