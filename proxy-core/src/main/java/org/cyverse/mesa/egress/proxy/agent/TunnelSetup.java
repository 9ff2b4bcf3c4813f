package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.PipelineNames;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;
import org.cyverse.mesa.egress.proxy.exchange.ExchangeOwner;
import org.cyverse.mesa.egress.proxy.tunnel.HelloRetryCheck;
import org.cyverse.mesa.egress.proxy.tunnel.RelayHandler;
import org.cyverse.mesa.egress.proxy.tunnel.SniCheck;
import org.cyverse.mesa.egress.proxy.tunnel.Tunnel;
import org.cyverse.mesa.egress.proxy.upstream.DialFailure;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamConnection;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamHandler;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamLink;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamPipelines;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamProtocolSwitch;

/**
 * Turns an admitted CONNECT into a tunnel: resolve, vet and dial first, so that every refusal is
 * an HTTP answer given before any tunnel exists; then answer 200 and have {@link AgentPipelines}
 * rewire both sides, with {@link SniCheck} judging the ClientHello before a byte of it is relayed
 * or terminated.
 */
final class TunnelSetup {

    private static final Logger LOG = Logger.getLogger(TunnelSetup.class.getName());

    static final HttpResponseStatus ESTABLISHED = new HttpResponseStatus(200, "Connection Established");

    private final ProxyContext proxy;
    private final ChannelHandlerContext ctx;
    private final Exchange exchange;
    private final ExchangeOwner owner;
    /** Makes the handler for the requests inside an intercepted tunnel, given its target and upstream. */
    private final BiFunction<Destination, IdleUpstreams, ChannelHandler> insideHandler;

    TunnelSetup(ProxyContext proxy, ChannelHandlerContext ctx, Exchange exchange, ExchangeOwner owner,
            BiFunction<Destination, IdleUpstreams, ChannelHandler> insideHandler) {
        this.proxy = proxy;
        this.ctx = ctx;
        this.exchange = exchange;
        this.owner = owner;
        this.insideHandler = insideHandler;
    }

    /**
     * Dials the admitted CONNECT of {@code verdict} (tunnel or intercept) and sets the tunnel up.
     * With {@code tls.http2} an intercepted upstream is asked for HTTP/2 too, and the 200 waits
     * until its TLS chose: a failed handshake is then the CONNECT's answer (502, saying why).
     *
     * <p>Nothing is dialed for a client that closed right behind its CONNECT. Go's HTTP client
     * dials a spare connection whenever a request finds none idle and drops it as soon as another
     * comes free; under load, such dials wait in the listen backlog and arrive as a CONNECT
     * followed by the end of the connection, read in the same pass. The dial starts after that
     * pass, once the end was seen: a full backlog of them had each cost an upstream connection and
     * handshake, and kept the live clients' new connections waiting for seconds.
     */
    void start(Verdict verdict, ProxyState state) {
        ctx.channel().eventLoop().execute(() -> {
            if (ctx.channel().isActive()) {
                dial(verdict, state);
            }
        });
    }

    private void dial(Verdict verdict, ProxyState state) {
        Destination destination = verdict.destination();
        boolean intercept = verdict.mode() == Verdict.Mode.INTERCEPT;
        if (intercept && state.config().tls().http2()) {
            UpstreamProtocolSwitch.dial(proxy.dialer, destination, state, ctx.channel().eventLoop())
                    .addListener((Future<UpstreamConnection> f) -> {
                        if (dialed(f, destination, state)) {
                            intercepted(destination, state, f.getNow());
                        }
                    });
            return;
        }
        UpstreamHandler upstreamHandler = new UpstreamHandler();
        ChannelInitializer<Channel> init = intercept ? UpstreamPipelines.upstream(state, destination, true, upstreamHandler)
                : UpstreamPipelines.bareUpstream();
        proxy.dialer.dial(destination, state, ctx.channel().eventLoop(), init).addListener((Future<Channel> f) -> {
            if (!dialed(f, destination, state)) {
                return;
            }
            if (intercept) {
                intercepted(destination, state, new UpstreamLink(f.getNow(), upstreamHandler, destination));
            } else {
                established(destination, state, f.getNow());
            }
        });
    }

    /** Whether the dial {@code f} succeeded with the client still there; otherwise the client is answered, or what was dialed closed. */
    private boolean dialed(Future<?> f, Destination destination, ProxyState state) {
        if (!ctx.channel().isActive()) {
            if (f.isSuccess()) {
                closeDialed(f.getNow());
            }
            return false;
        }
        if (!f.isSuccess()) {
            owner.refuse(exchange, DialFailure.refusalOf(f.cause(), destination.host(), state.profile()), true);
            return false;
        }
        return true;
    }

    private static void closeDialed(Object dialed) {
        if (dialed instanceof Channel channel) {
            channel.close();
        } else {
            ((UpstreamConnection) dialed).close();
        }
    }

    /**
     * Answers 200, then terminates the client's TLS with a leaf certificate for the target (once
     * the ClientHello named it) and handles each request inside as a forwarded one, over the
     * already dialed, verified TLS connection to the upstream.
     */
    private void intercepted(Destination destination, ProxyState state, UpstreamConnection upstream) {
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, ESTABLISHED)).addListener(f -> {
            if (!f.isSuccess()) {
                upstream.close();
                ctx.close();
                return;
            }
            // Until a client handler owns the upstream (it closes it with the client), a client that
            // goes away during the ClientHello or the handshake must not leave it open. A WebSocket
            // session closes it itself, after a close frame.
            if (upstream instanceof UpstreamLink link) {
                link.park();
                ctx.channel().closeFuture().addListener(closed -> link.closeUnlessHandedOver());
            } else {
                ctx.channel().closeFuture().addListener(closed -> upstream.close());
            }
            long helloMillis = state.config().limits().headerTimeout().toMillis();
            AgentPipelines.toInterception(ctx.pipeline(), new SniCheck(destination, helloMillis, state.config().tls().requireSni(), new Interception(destination, upstream)));
            ctx.channel().read();
        });
    }

    /** The intercepted tunnel's side of the SNI check. */
    private final class Interception implements SniCheck.Outcome {
        private final Destination destination;
        private final UpstreamConnection upstream;

        Interception(Destination destination, UpstreamConnection upstream) {
            this.destination = destination;
            this.upstream = upstream;
        }

        @Override
        public Future<SslContext> context(ChannelHandlerContext sni) {
            return proxy.leaves.serverContext(sni.executor(), destination);
        }

        @Override
        public void proceed(ChannelHandlerContext sni, SslContext context) {
            ChannelPipeline p = sni.pipeline();
            AgentPipelines.interceptedTls(p, context.newHandler(sni.alloc()), new ProtocolSwitch(destination, http2 -> {
                if (http2) { // every stream a request of its own, the upstream connections shared between them
                    IdleUpstreams shared = IdleUpstreams.shared(upstream);
                    p.channel().closeFuture().addListener(closed -> shared.closeAll());
                    AgentPipelines.interceptedHttp2(p, proxy, destination, () -> insideHandler.apply(destination, shared));
                } else {
                    AgentPipelines.interceptedHttp(p, proxy, insideHandler.apply(destination, IdleUpstreams.own(upstream)));
                }
            }));
        }

        @Override
        public void refuse(Refusal refusal) {
            LOG.info(() -> "intercepted tunnel to " + destination.authority() + " refused (" + refusal.reason().code() + "): "
                    + refusal.error());
            exchange.finishRefused(proxy, refusal);
            upstream.close();
            ctx.close();
        }
    }

    private void established(Destination destination, ProxyState state, Channel upstream) {
        Tunnel tunnel = new Tunnel(proxy, exchange, ctx.channel(), upstream);
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, ESTABLISHED)).addListener(f -> {
            if (!f.isSuccess()) {
                tunnel.close();
                return;
            }
            long idleMillis = state.config().limits().idleTimeout().toMillis();
            long helloMillis = state.config().limits().headerTimeout().toMillis();
            SniCheck sni = new SniCheck(destination, helloMillis, state.config().tls().requireSni(), new SniCheck.Outcome() {
                @Override
                public Future<SslContext> context(ChannelHandlerContext sniCtx) {
                    return sniCtx.executor().newSucceededFuture(null);
                }

                @Override
                public void proceed(ChannelHandlerContext sniCtx, SslContext context) {
                    SniCheck check = (SniCheck) sniCtx.handler();
                    HelloRetryCheck retry = new HelloRetryCheck(check.serverName(), check.helloLength(), destination.host(),
                            state.profile(), tunnel::refuse);
                    upstream.pipeline().addBefore(PipelineNames.RELAY, PipelineNames.RETRY_CHECK, retry.fromServer);
                    sniCtx.pipeline().addAfter(PipelineNames.SNI_CHECK, PipelineNames.RETRY_CHECK, retry.fromClient);
                    sniCtx.pipeline().remove(check); // hands the buffered ClientHello (and what followed it) on
                }

                @Override
                public void refuse(Refusal refusal) {
                    tunnel.refuse(refusal);
                }
            });
            AgentPipelines.toTunnel(ctx.pipeline(), idleMillis, sni, new RelayHandler(tunnel, true), upstream, new RelayHandler(tunnel, false));
            upstream.read();
            ctx.channel().read();
        });
    }
}
