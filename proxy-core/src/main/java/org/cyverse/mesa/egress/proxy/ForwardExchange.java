package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.Map;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.Reason;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.StreamReplacer;

/**
 * One admitted request relayed to its upstream and its response relayed back, both streamed with
 * backpressure: each body chunk is read from one side only after the previous chunk was written
 * to the other. Two small state machines, one per direction, and a phase for the whole; it tells
 * its {@link ExchangeOwner} when it wants the next body chunk, when it is over, and when it failed
 * before answering. Confined to the client channel's event loop (the upstream channel is
 * registered on the same loop).
 */
final class ForwardExchange implements UpstreamListener {

    private enum Phase { CONNECTING, ACTIVE, DONE }

    /** The request body's way upstream: the next chunk may be taken, one (the last) is being written, all sent. */
    private enum Upload { READY, WRITING, WRITING_LAST, SENT }

    /** The response's way back: no head yet, an interim (1xx) response, the final one, all of it written. */
    private enum Download { AWAITING, INTERIM, STREAMING, COMPLETE }

    private final ProxyContext proxy;
    private final ExchangeOwner owner;
    private final ChannelHandlerContext ctx;
    private final ProxyState state;
    private final Exchange exchange;
    private final Destination destination;
    private final HttpRequest request;
    private final HttpRequest outgoing;
    private final boolean tls;
    private final boolean requestHasBody;
    private final boolean clientKeepAlive;
    private final StreamReplacer requestReplacer;

    private Phase phase = Phase.CONNECTING;
    private Upload upload = Upload.READY;
    private Download download = Download.AWAITING;
    private UpstreamLink link;
    private ResponseFraming framing;
    private int status;

    /**
     * @param request the client's request head (its version and method)
     * @param outgoing the head to send: origin-form, hop-by-hop fields removed, credentials applied
     * @param tls whether the upstream is reached over TLS (an intercepted CONNECT)
     * @param bodySubstitution sentinel to secret, for credentials that opted in to body substitution
     */
    ForwardExchange(ProxyContext proxy, ExchangeOwner owner, ChannelHandlerContext ctx, ProxyState state, Exchange exchange,
            Destination destination, HttpRequest request, HttpRequest outgoing, boolean tls, Map<String, Secret> bodySubstitution,
            boolean clientKeepAlive) {
        this.proxy = proxy;
        this.owner = owner;
        this.ctx = ctx;
        this.state = state;
        this.exchange = exchange;
        this.destination = destination;
        this.request = request;
        this.outgoing = outgoing;
        this.tls = tls;
        this.requestHasBody = HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
        this.requestReplacer = requestHasBody && !bodySubstitution.isEmpty() ? BodyRewriting.sentinelsToSecrets(bodySubstitution) : null;
        this.clientKeepAlive = clientKeepAlive;
    }

    /** Sends the request head on {@code reuse}, or on a new connection dialed now. */
    void start(UpstreamLink reuse) {
        if (reuse != null) {
            attach(reuse);
            return;
        }
        UpstreamHandler handler = new UpstreamHandler();
        ChannelInitializer<Channel> init = Pipelines.upstream(state, destination, tls, handler);
        proxy.dialer.dial(destination, state, ctx.channel().eventLoop(), init).addListener((Future<Channel> f) -> {
            if (phase == Phase.DONE) {
                if (f.isSuccess()) {
                    f.getNow().close();
                }
                return;
            }
            if (!f.isSuccess()) {
                fail(DialFailure.refusalOf(f.cause(), destination.host(), state.profile()));
                return;
            }
            attach(new UpstreamLink(f.getNow(), handler, destination));
        });
    }

    private void attach(UpstreamLink upstream) {
        link = upstream;
        phase = Phase.ACTIVE;
        link.handler.listener = this;
        // RFC 9112 section 3.2.2: a proxy replaces Host with the authority of the target URI.
        outgoing.headers().set(HttpHeaderNames.HOST, destination.hostField(tls ? 443 : 80));
        if (requestReplacer != null) {
            // The body changes length: send it chunked.
            outgoing.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
            outgoing.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        // The head goes out with the first body chunk when that is already here (one write for a
        // GET: the head and its empty end), and on its own otherwise (a client waiting for 100 Continue).
        link.channel.write(outgoing).addListener(f -> {
            if (!f.isSuccess()) {
                upstreamClosed();
            }
        });
        link.channel.read(); // an interim 100 Continue or an early answer may come before the body is sent
        owner.bodyWanted();
        link.channel.flush();
    }

    /** Whether the next request body chunk can be taken now. */
    boolean wantsBody() {
        return phase == Phase.ACTIVE && upload == Upload.READY;
    }

    void body(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        exchange.bytesUp += content.content().readableBytes();
        if (requestReplacer != null) {
            content = BodyRewriting.rewrite(content, requestReplacer);
        }
        upload = last ? Upload.WRITING_LAST : Upload.WRITING;
        link.channel.writeAndFlush(content).addListener(f -> {
            if (phase == Phase.DONE) {
                return;
            }
            if (!f.isSuccess()) {
                upload = Upload.READY;
                upstreamClosed();
                return;
            }
            upload = last ? Upload.SENT : Upload.READY;
            if (last) {
                maybeFinish();
            }
            owner.bodyWanted();
        });
    }

    @Override
    public void onResponse(HttpObject msg) {
        if (phase == Phase.DONE) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpResponse response) {
            int code = response.status().code();
            if (response.decoderResult().isFailure() || code == 101) {
                ReferenceCountUtil.release(msg);
                failBeforeAnswer(Reason.UPSTREAM_UNREACHABLE,
                        code == 101 ? "the upstream switched protocols" : "the upstream sent a malformed response");
                return;
            }
            if (code < 200) {
                download = Download.INTERIM;
                HopByHop.strip(response.headers());
            } else {
                download = Download.STREAMING;
                status = code;
                framing = ResponseFraming.prepare(response, request, state.injector(), !clientKeepAlive || proxy.draining);
            }
        }
        boolean interim = download == Download.INTERIM;
        if (msg instanceof HttpContent content) {
            if (framing != null && framing.bodyScrubber() != null && !interim) {
                msg = BodyRewriting.rewrite(content, framing.bodyScrubber());
            }
            exchange.bytesDown += ((HttpContent) msg).content().readableBytes();
        }
        boolean finalLast = msg instanceof LastHttpContent && !interim;
        // Flushed at the end of the upstream read ({@link #flushResponse}) or with the last part:
        // a small response whose head and body came in one read leaves in one write.
        ChannelFuture written = finalLast ? ctx.writeAndFlush(msg) : ctx.write(msg);
        written.addListener(f -> {
            if (!f.isSuccess()) {
                clientGone();
            } else if (finalLast) {
                download = Download.COMPLETE;
                maybeFinish();
            } else if (phase != Phase.DONE) {
                link.channel.read();
            }
        });
    }

    @Override
    public void flushResponse() {
        if (phase != Phase.DONE) {
            ctx.flush();
        }
    }

    /** Ends the exchange once the response is complete (and the request, or what can be sent of it). */
    private void maybeFinish() {
        if (phase == Phase.DONE || download != Download.COMPLETE || upload == Upload.WRITING_LAST) {
            return;
        }
        if (upload != Upload.SENT) {
            // The upstream answered before taking the whole body: the rest cannot be resynchronized.
            finish(false, true);
        } else {
            finish(framing.upstreamReusable() && link.channel.isActive(), framing.closeClient());
        }
    }

    private void finish(boolean reuseUpstream, boolean close) {
        phase = Phase.DONE;
        exchange.finishAllowed(proxy, status);
        UpstreamLink keep = null;
        if (reuseUpstream && !close) {
            keep = link;
            keep.park();
        } else {
            link.close();
        }
        owner.completed(keep, close);
    }

    @Override
    public void upstreamTlsFailed(String detail) {
        failBeforeAnswer(Reason.UPSTREAM_TLS_ERROR, detail);
    }

    @Override
    public void upstreamClosed() {
        failBeforeAnswer(Reason.UPSTREAM_UNREACHABLE, "the upstream closed the connection before answering");
    }

    @Override
    public void upstreamIdle() {
        failBeforeAnswer(Reason.UPSTREAM_TIMEOUT, "no answer");
    }

    private void failBeforeAnswer(Reason reason, String detail) {
        abandon(Refusals.of(reason, destination.host(), state.profile(), detail));
    }

    /**
     * Ends the exchange on a failure: before the response started the client gets {@code refusal};
     * after, the response is cut short and the client learns it from the closed connection. Also
     * for a request body that turned out malformed: the upstream connection closes without the
     * body's end, so the upstream never sees a complete request.
     */
    void abandon(Refusal refusal) {
        if (phase == Phase.DONE) {
            return;
        }
        if (download == Download.AWAITING || download == Download.INTERIM) {
            fail(refusal);
        } else {
            clientGone();
            ctx.close();
        }
    }

    private void fail(Refusal refusal) {
        phase = Phase.DONE;
        if (link != null) {
            link.close();
        }
        owner.refuse(exchange, refusal, requestHasBody);
    }

    /** The client went away: nothing more to relay. */
    void clientGone() {
        if (phase == Phase.DONE) {
            return;
        }
        phase = Phase.DONE;
        exchange.finishAllowed(proxy, status);
        if (link != null) {
            link.close();
        }
    }
}
