package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.agent.ResponseDownload.Stage;
import org.cyverse.mesa.egress.proxy.body.BodyFinding;
import org.cyverse.mesa.egress.proxy.body.BodyRefusals;
import org.cyverse.mesa.egress.proxy.body.RequestBodyGate;
import org.cyverse.mesa.egress.proxy.body.RequestUpload;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;
import org.cyverse.mesa.egress.proxy.exchange.ExchangeOwner;
import org.cyverse.mesa.egress.proxy.upstream.DialFailure;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamLink;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamListener;
import org.cyverse.mesa.egress.proxy.websocket.WebSocketUpgrade;

/**
 * One admitted request relayed to its upstream and its response relayed back, both streamed with
 * backpressure: each body chunk is read from one side only after the previous chunk was written
 * to the other. Two small state machines, one per direction ({@link RequestUpload},
 * {@link ResponseDownload}), and a phase for the whole; it tells
 * its {@link ExchangeOwner} when it wants the next body chunk, when it is over, and when it failed
 * before answering. Confined to the client channel's event loop (the upstream channel is
 * registered on the same loop).
 */
final class ForwardExchange implements UpstreamListener, RequestUpload.Listener {

    private enum Phase { CONNECTING, ACTIVE, DONE }

    private final ProxyContext proxy;
    private final ExchangeOwner owner;
    private final ChannelHandlerContext ctx;
    private final ProxyState state;
    private final Exchange exchange;
    private final Destination destination;
    private final HttpRequest request;
    /** {@code credentialHost}: a credential covers the destination (its answers are decoded to be scrubbed). */
    private final boolean tls, requestHasBody, clientKeepAlive, credentialHost;
    private final RequestUpload upload;
    private final ResponseDownload download;

    private Phase phase = Phase.CONNECTING;
    private UpstreamLink link;

    /**
     * @param request the client's request head (its version and method)
     * @param outgoing the head to send: origin-form, hop-by-hop fields removed, credentials applied
     * @param tls whether the upstream is reached over TLS (an intercepted CONNECT)
     * @param gate what scans, holds and rewrites the body, or {@code null} (no body, or nothing to do to it)
     */
    ForwardExchange(ProxyContext proxy, ExchangeOwner owner, ChannelHandlerContext ctx, ProxyState state, Exchange exchange,
            Destination destination, HttpRequest request, HttpRequest outgoing, boolean tls, RequestBodyGate gate,
            boolean clientKeepAlive) {
        this.proxy = proxy;
        this.owner = owner;
        this.ctx = ctx;
        this.state = state;
        this.exchange = exchange;
        this.destination = destination;
        this.request = request;
        this.tls = tls;
        this.requestHasBody = RequestBodyGate.hasBody(request);
        this.credentialHost = state.injector().hasCredentialFor(destination);
        this.upload = new RequestUpload(owner, outgoing, gate, this, ctx.channel().eventLoop());
        this.download = new ResponseDownload(request, state, credentialHost);
        this.clientKeepAlive = clientKeepAlive;
    }

    /** Sends the request on what {@code upstreams} gives for it: an idle connection, a stream, or one dialed now. */
    void start(IdleUpstreams upstreams) {
        upload.continueIfHeld(ctx, request);
        upstreams.link(proxy, state, destination, request, tls, ctx.channel().eventLoop()).addListener((Future<UpstreamLink> f) -> {
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
            attach(f.getNow());
        });
    }

    private void attach(UpstreamLink upstream) {
        link = upstream;
        phase = Phase.ACTIVE;
        link.handler.listener = upload.answersTo(this);
        link.handler.awaitFirstByte();
        upload.attach(link.channel, destination, tls, credentialHost);
    }

    /** Whether the next request body chunk can be taken now. */
    boolean wantsBody() {
        return phase != Phase.DONE && upload.wantsBody();
    }

    void body(HttpContent content) {
        exchange.up(content.content().readableBytes());
        upload.body(content);
    }

    /** Once its answer began, an upstream may stop taking the body (a 413; RFC 9113 8.1): the download goes on, and sees a cut itself. */
    @Override // what the upload tells the exchange (RequestUpload.Listener)
    public void uploadFailed() {
        if (download.stage != Stage.STREAMING && download.stage != Stage.COMPLETE) {
            upstreamClosed();
        }
    }

    @Override
    public void uploadComplete() {
        maybeFinish();
    }

    /** Held back, none of the request left; streamed past the bound, the upstream is reset: the request never completes there. */
    @Override
    public void bodyRefused(BodyFinding finding, boolean sent) {
        Refusal refusal = BodyRefusals.recorded(finding, destination, state, sent ? exchange.bytesUp : -1, exchange, proxy.metrics);
        if (sent && link != null) {
            link.reset();
        }
        if (download.stage == Stage.STREAMING) {
            exchange.finishRefused(proxy, refusal); // the answer has begun: the record says what happened
        }
        abandon(refusal);
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
                String refused = response.decoderResult().isFailure() ? "the upstream sent a malformed response"
                        : WebSocketUpgrade.notAccepted(request, response);
                if (refused != null) {
                    failBeforeAnswer(Reason.UPSTREAM_UNREACHABLE, refused);
                    return;
                }
                phase = Phase.DONE; // a WebSocket: the connection is handed over
                release();
                owner.upgraded(exchange, link, WebSocketUpgrade.toClient(response, download.echo().merged(state.injector().echoScrubber())),
                        download.echo());
                return;
            }
            if (code < 200) {
                download.interim(response);
            } else {
                msg = download.head(response, !clientKeepAlive || proxy.draining);
                if (msg == null) {
                    ReferenceCountUtil.release(response);
                    failBeforeAnswer(Reason.UPSTREAM_UNREACHABLE, download.framing.unreadable());
                    return;
                }
            }
        }
        boolean interim = download.stage == Stage.INTERIM;
        if (msg instanceof HttpContent content) {
            msg = download.body(content);
            if (msg == null) { // the head has gone: the client learns of it from the cut connection (or stream)
                failBeforeAnswer(Reason.UPSTREAM_UNREACHABLE, download.cutBecause());
                return;
            }
            exchange.down(((HttpContent) msg).content().readableBytes());
            download.scrubTrailers(msg);
        }
        boolean finalLast = msg instanceof LastHttpContent && !interim;
        // Flushed at the end of the upstream read ({@link #flushResponse}) or with the last part:
        // a small response whose head and body came in one read leaves in one write.
        ChannelFuture written = finalLast ? ctx.writeAndFlush(msg) : ctx.write(msg);
        written.addListener(f -> {
            if (!f.isSuccess()) {
                clientGone();
            } else if (finalLast) {
                download.stage = Stage.COMPLETE;
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
        if (phase == Phase.DONE || download.stage != Stage.COMPLETE || upload.writingLast()) {
            return;
        }
        if (!upload.sent()) {
            // The upstream answered before taking the whole body: the rest cannot be resynchronized.
            finish(false, true);
        } else {
            finish(download.framing.upstreamReusable() && link.channel.isActive(), download.framing.closeClient());
        }
    }

    private void finish(boolean reuseUpstream, boolean close) {
        phase = Phase.DONE;
        release();
        exchange.finishAllowed(proxy, download.status);
        UpstreamLink keep = reuseUpstream && !close ? link : null;
        if (keep != null) {
            keep.park();
        } else {
            link.close();
        }
        owner.completed(keep, close);
    }

    @Override
    public void upstreamTlsFailed(Throwable cause) {
        abandon(Refusals.upstreamTls(cause, destination.host(), state.profile()));
    }

    @Override
    public void upstreamClosed() {
        failBeforeAnswer(Reason.UPSTREAM_UNREACHABLE, "the upstream closed the connection before answering");
    }

    @Override
    public void upstreamIdle() {
        failBeforeAnswer(Reason.UPSTREAM_TIMEOUT, download.stage == Stage.STREAMING ? "quiet for limits.idle_timeout in mid-response"
                : "no answer within limits.upstream_first_byte_timeout");
    }

    private void failBeforeAnswer(Reason reason, String detail) {
        abandon(Refusals.of(reason, destination.host(), state.profile(), detail));
    }

    /**
     * Ends the exchange on a failure: before the response started the client gets {@code refusal};
     * after, the response is cut short (the client sees the connection close). For a malformed
     * request body the upstream never sees the body's end, so never a complete request.
     */
    void abandon(Refusal refusal) {
        if (phase != Phase.DONE && (download.stage == Stage.AWAITING || download.stage == Stage.INTERIM)) {
            fail(refusal);
        } else if (phase != Phase.DONE) {
            exchange.finishCutShort(proxy, refusal, download.status); // the answer had begun: the record says it was cut, and why
            clientGone();
            ctx.close();
        }
    }

    private void fail(Refusal refusal) {
        phase = Phase.DONE;
        release();
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
        release();
        exchange.finishAllowed(proxy, download.status);
        if (link != null) {
            link.close();
        }
    }

    private void release() {
        upload.close();
        download.release();
    }
}
