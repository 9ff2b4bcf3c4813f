package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.allowlist.Reason;
import org.cyverse.mesa.egress.allowlist.Target;

/**
 * Turns a CONNECT into an opaque tunnel: decide, resolve, vet and dial first, so that every
 * refusal is an HTTP answer given before any tunnel exists; then answer 200 and rebuild both
 * pipelines for relaying, with {@link SniCheck} judging the ClientHello before a byte of it is
 * relayed.
 */
final class TunnelSetup {

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(TunnelSetup.class.getName());

    private static final HttpResponseStatus ESTABLISHED = new HttpResponseStatus(200, "Connection Established");

    private final ProxyContext proxy;
    private final ChannelHandlerContext ctx;
    private final Exchange exchange;
    private final ClientHandler client;

    TunnelSetup(ProxyContext proxy, ChannelHandlerContext ctx, Exchange exchange, ClientHandler client) {
        this.proxy = proxy;
        this.ctx = ctx;
        this.exchange = exchange;
        this.client = client;
    }

    void start(String authority) {
        exchange.mode = "tunnel";
        Destination destination;
        try {
            RequestTarget target = RequestTarget.parseAuthority(authority);
            exchange.host = target.host();
            exchange.port = target.port();
            destination = Destination.parse(target.host(), target.port());
        } catch (RequestTarget.BadTargetException | InvalidDestinationException e) {
            client.refuse(exchange, Refusals.badRequest("bad CONNECT target: " + e.getMessage(),
                    "CONNECT takes host:port, e.g. CONNECT github.com:443"), true);
            return;
        }
        exchange.host = destination.host();
        ProxyState state = proxy.state();
        Decision decision = state.config().policy().decide(Target.tunnel(destination));
        exchange.rule = decision.rule();
        boolean needsInspection = decision.outcome() == Decision.Outcome.NEEDS_INSPECTION;
        // proxy.leaves is null when the proxy started without interception (no CA to mint with).
        boolean intercept = proxy.leaves != null && state.config().intercepts(decision, destination);
        if (needsInspection && !intercept) {
            client.refuse(exchange, Refusals.of(decision.reason(), destination.host(), state.profile(),
                    "rule " + decision.rule()).withHint("the rules for " + destination.host()
                    + " restrict methods or paths, which on HTTPS needs TLS interception (tls.intercept is none)"), true);
            return;
        }
        if (!decision.allowed() && !needsInspection) {
            client.refuse(exchange, Refusals.of(decision, destination.host(), destination.port(), state.profile()), true);
            return;
        }
        UpstreamHandler upstreamHandler = new UpstreamHandler();
        ChannelInitializer<Channel> init = intercept ? UpstreamPipeline.forward(state, destination, true, upstreamHandler)
                : new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // The relay handler is added once the tunnel exists.
                    }
                };
        proxy.dialer.dial(destination, state, ctx.channel().eventLoop(), init).addListener((Future<Channel> f) -> {
            if (!ctx.channel().isActive()) {
                if (f.isSuccess()) {
                    f.getNow().close();
                }
                return;
            }
            if (!f.isSuccess()) {
                client.refuse(exchange, DialFailure.refusalOf(f.cause(), destination.host(), state.profile()), true);
                return;
            }
            if (intercept) {
                intercepted(destination, state, new UpstreamLink(f.getNow(), upstreamHandler, destination));
            } else {
                established(destination, state, f.getNow());
            }
        });
    }

    /**
     * Answers 200, then terminates the client's TLS with a leaf certificate for the target (once
     * the ClientHello named it) and handles each request inside as a forwarded one, over the
     * already dialed, verified TLS connection to the upstream.
     */
    private void intercepted(Destination destination, ProxyState state, UpstreamLink upstream) {
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, ESTABLISHED)).addListener(f -> {
            if (!f.isSuccess()) {
                upstream.close();
                ctx.close();
                return;
            }
            upstream.park();
            // Until a ClientHandler owns the upstream (it closes it with the client), a client that
            // goes away during the ClientHello or the handshake must not leave it open.
            ctx.channel().closeFuture().addListener(closed -> upstream.close());
            long helloMillis = state.config().limits().headerTimeout().toMillis();
            ChannelPipeline pipeline = ctx.pipeline();
            pipeline.addAfter(PipelineNames.CLIENT, PipelineNames.SNI_CHECK,
                    new SniCheck(destination, helloMillis, new Interception(destination, state, upstream)));
            pipeline.remove(PipelineNames.ENCODER);
            pipeline.remove(PipelineNames.CLIENT);
            pipeline.remove(PipelineNames.DECODER); // hands any bytes it holds to the SNI check
            ctx.channel().read();
        });
    }

    /** The intercepted tunnel's side of the SNI check. */
    private final class Interception implements SniCheck.Outcome {
        private final Destination destination;
        private final ProxyState state;
        private final UpstreamLink upstream;

        Interception(Destination destination, ProxyState state, UpstreamLink upstream) {
            this.destination = destination;
            this.state = state;
            this.upstream = upstream;
        }

        @Override
        public Future<SslContext> context(ChannelHandlerContext sni) {
            Promise<SslContext> promise = sni.executor().newPromise();
            proxy.leaves.serverContext(destination).whenComplete((context, error) -> {
                if (error != null) {
                    promise.tryFailure(error);
                } else {
                    promise.trySuccess(context);
                }
            });
            return promise;
        }

        @Override
        public void proceed(ChannelHandlerContext sni, SslContext context) {
            ChannelPipeline pipeline = sni.pipeline();
            int maxHeaderBytes = state.config().limits().maxHeaderBytes();
            pipeline.addAfter(PipelineNames.SNI_CHECK, PipelineNames.DECODER, new StrictRequestDecoder(maxHeaderBytes));
            pipeline.addAfter(PipelineNames.DECODER, PipelineNames.ENCODER, new HttpResponseEncoder());
            pipeline.addAfter(PipelineNames.ENCODER, PipelineNames.CLIENT, new ClientHandler(proxy, destination, upstream));
            // Last: the SNI check hands the ClientHello it holds to the TLS handler that replaces it.
            pipeline.replace(PipelineNames.SNI_CHECK, PipelineNames.TLS, context.newHandler(sni.alloc()));
        }

        @Override
        public void refuse(Reason reason, int status, String detail) {
            LOG.info(() -> "intercepted tunnel to " + destination.authority() + " refused (" + reason.code() + "): " + detail);
            exchange.mode = "intercept";
            exchange.finish(proxy, false, reason, status);
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
            upstream.pipeline().addLast(PipelineNames.RELAY, new RelayHandler(tunnel, false));
            ChannelPipeline pipeline = ctx.pipeline();
            pipeline.addAfter(PipelineNames.CLIENT, PipelineNames.IDLE,
                    new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
            pipeline.addAfter(PipelineNames.IDLE, PipelineNames.SNI_CHECK, new SniCheck(destination, helloMillis, new SniCheck.Outcome() {
                @Override
                public Future<SslContext> context(ChannelHandlerContext sni) {
                    return sni.executor().newSucceededFuture(null);
                }

                @Override
                public void proceed(ChannelHandlerContext sni, SslContext context) {
                    sni.pipeline().remove(sni.handler()); // hands the buffered ClientHello on to the relay
                }

                @Override
                public void refuse(Reason reason, int status, String detail) {
                    tunnel.refuse(reason, status, detail);
                }
            }));
            pipeline.addAfter(PipelineNames.SNI_CHECK, PipelineNames.RELAY, new RelayHandler(tunnel, true));
            pipeline.remove(PipelineNames.ENCODER);
            pipeline.remove(PipelineNames.CLIENT);
            // Last: removing the decoder hands any bytes it already holds to the SNI check.
            pipeline.remove(PipelineNames.DECODER);
            upstream.read();
            ctx.channel().read();
        });
    }
}
