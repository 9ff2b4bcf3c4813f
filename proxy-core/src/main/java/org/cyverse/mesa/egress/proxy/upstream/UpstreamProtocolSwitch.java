package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.ProxyState;

/**
 * On an upstream connection whose TLS offered {@code h2} and {@code http/1.1} ({@code tls.http2}):
 * once the handshake verified the upstream and ALPN chose, the pipeline for that protocol
 * ({@link UpstreamPipelines#upstreamHttp1}, {@link UpstreamPipelines#upstreamHttp2}), and the dial completes with
 * the connection. An upstream that chose nothing speaks HTTP/1.1. A failed handshake fails the
 * dial with {@code upstream_tls_error}, saying why.
 */
public final class UpstreamProtocolSwitch extends ApplicationProtocolNegotiationHandler {

    private final ProxyState state;
    private final Destination destination;
    private final Promise<UpstreamConnection> dialed;
    private final UpstreamHandler handler = new UpstreamHandler();

    private UpstreamProtocolSwitch(ProxyState state, Destination destination, Promise<UpstreamConnection> dialed) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.state = state;
        this.destination = destination;
        this.dialed = dialed;
    }

    /** Dials {@code destination} over TLS offering both protocols: the connection once ALPN chose. */
    public static Future<UpstreamConnection> dial(UpstreamDialer dialer, Destination destination, ProxyState state, EventLoop loop) {
        Promise<UpstreamConnection> dialed = loop.newPromise();
        UpstreamProtocolSwitch protocol = new UpstreamProtocolSwitch(state, destination, dialed);
        dialer.dial(destination, state, loop, UpstreamPipelines.negotiatingUpstream(state, destination, protocol))
                .addListener((Future<Channel> f) -> {
                    if (!f.isSuccess()) {
                        dialed.tryFailure(f.cause());
                        return;
                    }
                    Channel channel = f.getNow();
                    // Later than the close: a failed handshake closes the channel as it reports itself, and
                    // its reason (upstream_tls_error, saying what failed) is the one the client gets.
                    channel.closeFuture().addListener(closed -> loop.execute(() -> dialed.tryFailure(new DialFailure(Refusals.of(
                            Reason.UPSTREAM_UNREACHABLE, destination.host(), state.profile(),
                            "the upstream closed the connection during the TLS handshake")))));
                    dialed.addListener(done -> {
                        if (!done.isSuccess()) {
                            channel.close();
                        }
                    });
                    channel.read(); // auto-read is off: the handshake needs the upstream's answer
                });
        return dialed;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        Destination d = destination;
        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
            Http2Upstream[] made = new Http2Upstream[1]; // the idle watch asks it, once it exists, whether streams are open
            Http2FrameCodec codec = UpstreamPipelines.upstreamHttp2(ctx.pipeline(), state, () -> made[0] != null && made[0].streamsOpen());
            made[0] = new Http2Upstream(ctx.channel(), codec.connection(), d);
            if (!dialed.trySuccess(made[0])) {
                ctx.close();
            }
        } else {
            UpstreamPipelines.upstreamHttp1(ctx.pipeline(), state, handler);
            if (!dialed.trySuccess(new UpstreamLink(ctx.channel(), handler, d))) {
                ctx.close();
            }
        }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        dialed.tryFailure(new DialFailure(Refusals.upstreamTls(cause, destination.host(), state.profile())));
        ctx.close();
    }
}
