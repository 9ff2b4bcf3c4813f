package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.HostKind;
import org.cyverse.mesa.egress.allowlist.Reason;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.StreamReplacer;

/**
 * One allowed plain-http request relayed to its upstream and its response relayed back, both
 * streamed with backpressure: each body chunk is read from one side only after the previous
 * chunk was written to the other. Confined to the client channel's event loop (the upstream
 * channel is registered on the same loop).
 */
final class ForwardExchange {

    private final ProxyContext proxy;
    private final ClientHandler client;
    private final ChannelHandlerContext ctx;
    private final ProxyState state;
    private final Exchange exchange;
    private final Destination destination;
    private final HttpRequest request;
    private final HttpRequest outgoing;
    private final boolean tls;
    private final boolean requestHasBody;
    private final StreamReplacer requestReplacer;
    private StreamReplacer responseReplacer;
    private boolean closeClient;

    private UpstreamLink link;
    private boolean writeInFlight;
    private boolean requestDone;
    private boolean interim;
    private boolean responseStarted;
    private boolean responseDone;
    private boolean lastInFlight;
    private boolean upstreamReusable;
    private boolean done;
    private int status;

    /**
     * @param request the client's request head (its version and method)
     * @param outgoing the head to send: origin-form, hop-by-hop fields removed, credentials applied
     * @param tls whether the upstream is reached over TLS (an intercepted CONNECT)
     * @param bodySubstitution sentinel to secret, for credentials that opted in to body substitution
     */
    ForwardExchange(ProxyContext proxy, ClientHandler client, ChannelHandlerContext ctx, ProxyState state, Exchange exchange,
            Destination destination, HttpRequest request, HttpRequest outgoing, boolean tls, Map<String, Secret> bodySubstitution,
            boolean clientKeepAlive) {
        this.proxy = proxy;
        this.client = client;
        this.ctx = ctx;
        this.state = state;
        this.exchange = exchange;
        this.destination = destination;
        this.request = request;
        this.outgoing = outgoing;
        this.tls = tls;
        this.requestHasBody = HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
        this.requestReplacer = requestHasBody && !bodySubstitution.isEmpty() ? BodyRewriting.sentinelsToSecrets(bodySubstitution) : null;
        this.closeClient = !clientKeepAlive;
    }

    /** Sends the request head on {@code reuse}, or on a new connection dialed now. */
    void start(UpstreamLink reuse) {
        if (reuse != null) {
            attach(reuse);
            return;
        }
        UpstreamHandler handler = new UpstreamHandler();
        ChannelInitializer<Channel> init = UpstreamPipeline.forward(state, destination, tls, handler);
        proxy.dialer.dial(destination, state, ctx.channel().eventLoop(), init).addListener((Future<Channel> f) -> {
            if (done) {
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
        link.handler.listener = this;
        // RFC 9112 section 3.2.2: a proxy replaces Host with the authority of the target URI.
        outgoing.headers().set(HttpHeaderNames.HOST, hostHeader());
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
        client.drain();
        link.channel.flush();
    }

    private String hostHeader() {
        String host = destination.kind() == HostKind.IPV6 ? "[" + destination.host() + "]" : destination.host();
        return destination.port() == (tls ? 443 : 80) ? host : host + ":" + destination.port();
    }

    /** Whether the next request body chunk can be taken now. */
    boolean wantsBody() {
        return link != null && !requestDone && !writeInFlight && !done;
    }

    void body(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        exchange.bytesUp += content.content().readableBytes();
        if (requestReplacer != null) {
            content = BodyRewriting.rewrite(content, requestReplacer);
        }
        writeInFlight = true;
        lastInFlight = last;
        link.channel.writeAndFlush(content).addListener(f -> {
            writeInFlight = false;
            if (done) {
                return;
            }
            if (!f.isSuccess()) {
                lastInFlight = false;
                upstreamClosed();
                return;
            }
            if (last) {
                requestDone = true;
                lastInFlight = false;
                maybeFinish();
            }
            client.drain();
        });
    }

    void onResponse(HttpObject msg) {
        if (done) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpResponse) {
            HttpResponse response = (HttpResponse) msg;
            int code = response.status().code();
            if (response.decoderResult().isFailure() || code == 101) {
                ReferenceCountUtil.release(msg);
                upstreamBroken(code == 101 ? "the upstream switched protocols" : "the upstream sent a malformed response");
                return;
            }
            interim = code < 200;
            if (!interim) {
                responseStarted = true;
                status = code;
                prepareResponseHead(response);
            } else {
                HopByHop.strip(response.headers());
            }
        }
        if (msg instanceof HttpContent) {
            if (responseReplacer != null && !interim) {
                msg = BodyRewriting.rewrite((HttpContent) msg, responseReplacer);
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
                return;
            }
            if (finalLast) {
                responseDone = true;
                maybeFinish();
            } else if (!done) {
                link.channel.read();
            }
        });
    }

    /** The upstream's read is over: what it produced goes to the client now. */
    void flushResponse() {
        if (!done) {
            ctx.flush();
        }
    }

    private void prepareResponseHead(HttpResponse response) {
        boolean head = HttpMethod.HEAD.equals(request.method());
        boolean bodyless = head || status == 204 || status == 304;
        boolean chunked = HttpUtil.isTransferEncodingChunked(response);
        upstreamReusable = HttpUtil.isKeepAlive(response);
        if (!bodyless && !chunked && !HttpUtil.isContentLengthSet(response)) {
            // The body ends when the upstream closes: the upstream cannot be reused after it.
            upstreamReusable = false;
            closeClient = true;
        }
        HopByHop.strip(response.headers());
        ResponseScrubbing.scrubHeaders(response.headers(), state.injector());
        if (!bodyless && ResponseScrubbing.scrubbableBody(response.headers())) {
            StreamReplacer scrubber = state.injector().responseScrubber();
            if (!scrubber.isEmpty()) {
                // A secret echoed in the body is replaced by its sentinel: the length may change.
                responseReplacer = scrubber;
                response.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
                response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
                chunked = true;
            }
        }
        boolean http10Client = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
        if (http10Client && chunked) {
            // HTTP/1.0 has no chunked coding: send the body raw and end it by closing.
            response.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
            closeClient = true;
        }
        if (proxy.draining) {
            closeClient = true;
        }
        response.setProtocolVersion(HttpVersion.HTTP_1_1);
        if (closeClient) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10Client) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }

    /** Ends the exchange once the response is complete (and the request, or what can be sent of it). */
    private void maybeFinish() {
        if (done || !responseDone || lastInFlight) {
            return;
        }
        if (!requestDone) {
            // The upstream answered before taking the whole body: the rest cannot be resynchronized.
            finish(false, true);
        } else {
            finish(upstreamReusable && link.channel.isActive(), closeClient);
        }
    }

    private void finish(boolean reuseUpstream, boolean close) {
        done = true;
        exchange.finish(proxy, true, Reason.ALLOWED, status);
        UpstreamLink keep = null;
        if (reuseUpstream && !close) {
            keep = link;
            keep.park();
        } else {
            link.close();
        }
        client.forwardDone(keep, close);
    }

    /** TLS with the upstream failed: its chain or name did not verify, or the handshake broke. */
    void upstreamTlsFailed(Throwable cause) {
        if (done) {
            return;
        }
        String detail = cause == null ? "handshake failed" : rootMessage(cause);
        if (!responseStarted) {
            fail(Refusals.of(Reason.UPSTREAM_TLS_ERROR, destination.host(), state.profile(), detail).withHint(
                    "the upstream's certificate did not verify for " + destination.host() + " (chain or name); "
                            + "if it is signed by a private CA, add that CA with tls.upstream_ca"));
        } else {
            truncated();
        }
    }

    private static String rootMessage(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    /** The upstream connection closed or failed. */
    void upstreamClosed() {
        upstreamBroken("the upstream closed the connection before answering");
    }

    /** No bytes from the upstream within the idle timeout. */
    void upstreamIdle() {
        if (done) {
            return;
        }
        if (!responseStarted) {
            fail(Refusals.of(Reason.UPSTREAM_TIMEOUT, destination.host(), state.profile(), "no answer"));
        } else {
            truncated();
        }
    }

    private void upstreamBroken(String detail) {
        if (done) {
            return;
        }
        if (!responseStarted) {
            fail(Refusals.of(Reason.UPSTREAM_UNREACHABLE, destination.host(), state.profile(), detail));
        } else {
            truncated();
        }
    }

    /** The response was cut short: the client learns it from the closed connection. */
    private void truncated() {
        done = true;
        exchange.finish(proxy, true, Reason.ALLOWED, status);
        if (link != null) {
            link.close();
        }
        ctx.close();
    }

    private void fail(Refusal refusal) {
        done = true;
        if (link != null) {
            link.close();
        }
        client.forwardFailed(exchange, refusal, requestHasBody);
    }

    /** The client went away: nothing more to relay. */
    void clientGone() {
        if (done) {
            return;
        }
        done = true;
        exchange.finish(proxy, true, Reason.ALLOWED, status);
        if (link != null) {
            link.close();
        }
    }
}
