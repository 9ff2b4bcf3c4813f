package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
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
        if (decision.outcome() == Decision.Outcome.NEEDS_INSPECTION) {
            client.refuse(exchange, Refusals.of(decision.reason(), destination.host(), state.profile(),
                    "rule " + decision.rule()).withHint("the rules for " + destination.host()
                    + " restrict methods or paths, which on HTTPS needs TLS interception (tls.intercept)"), true);
            return;
        }
        if (!decision.allowed()) {
            client.refuse(exchange, Refusals.of(decision, destination.host(), destination.port(), state.profile()), true);
            return;
        }
        ChannelInitializer<Channel> init = new ChannelInitializer<>() {
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
                Throwable cause = f.cause();
                client.refuse(exchange, cause instanceof DialFailure ? ((DialFailure) cause).refusal()
                        : Refusals.of(Reason.UPSTREAM_UNREACHABLE, destination.host(), state.profile(), String.valueOf(cause)), true);
                return;
            }
            established(destination, state, f.getNow());
        });
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
            pipeline.addAfter(PipelineNames.IDLE, PipelineNames.SNI_CHECK, new SniCheck(destination, tunnel, helloMillis));
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
