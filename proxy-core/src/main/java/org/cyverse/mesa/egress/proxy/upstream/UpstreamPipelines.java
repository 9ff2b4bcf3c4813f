package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.PipelineNames;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.http.Http2Lifecycle;

/**
 * The upstream's side of the proxy's pipelines, in the order {@link PipelineNames} draws: a
 * connection for forwarding (HTTP/1.1, or HTTP/2 once ALPN chose it, and its streams), and one
 * for an opaque tunnel. The codecs and idle watches are made here; the handler that reports to
 * the exchange is handed in. Nothing here decides.
 */
public final class UpstreamPipelines {

    private UpstreamPipelines() {}

    /** An upstream for forwarding: verified TLS when {@code tls} (intercepted connections), HTTP/1.1, idle watch, the handler. */
    public static ChannelInitializer<Channel> upstream(ProxyState state, Destination destination, boolean tls, UpstreamHandler handler) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (tls) {
                    ch.pipeline().addLast(PipelineNames.TLS, state.upstreamTls().newHandler(ch.alloc(), destination, false));
                }
                upstreamHttp1(ch.pipeline(), state, handler);
            }
        };
    }

    /** An intercepted upstream that may speak HTTP/2: verified TLS offering {@code h2} and {@code http/1.1}, then {@code protocol} ({@link UpstreamProtocolSwitch}). */
    static ChannelInitializer<Channel> negotiatingUpstream(ProxyState state, Destination destination, ChannelHandler protocol) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(PipelineNames.TLS, state.upstreamTls().newHandler(ch.alloc(), destination, true))
                        .addLast(PipelineNames.PROTOCOL, protocol);
            }
        };
    }

    /** HTTP/1.1 toward an upstream: the client codec, the idle watch, {@code handler}. */
    static void upstreamHttp1(ChannelPipeline p, ProxyState state, UpstreamHandler handler) {
        int maxHeader = state.config().limits().maxHeaderBytes();
        handler.firstByteNanos = state.config().limits().upstreamFirstByteTimeout().toNanos();
        p.addLast(PipelineNames.CODEC, new HttpClientCodec(maxHeader, maxHeader, 64 * 1024))
                .addLast(PipelineNames.IDLE, new IdleStateHandler(state.config().limits().idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS))
                .addLast(PipelineNames.UPSTREAM, handler);
    }

    /**
     * HTTP/2 toward an upstream (ALPN chose {@code h2}): Netty's frame codec as a client (no server
     * push, header lists within {@code limits.max_header_bytes}, its flood guards on), an idle watch
     * that closes the connection once no stream was open for {@code limits.idle_timeout}, and the
     * multiplexer whose streams {@link Http2Upstream#open} opens. The connection reads on its own;
     * each stream reads when its exchange asks, which is what lets HTTP/2 flow control hold the
     * upstream back.
     */
    static Http2FrameCodec upstreamHttp2(ChannelPipeline p, ProxyState state, BooleanSupplier streamsOpen) {
        Http2FrameCodec codec = Http2FrameCodecBuilder.forClient().validateHeaders(true)
                .initialSettings(Http2Settings.defaultSettings().pushEnabled(false).initialWindowSize(UPSTREAM_STREAM_WINDOW)
                        .maxHeaderListSize(state.config().limits().maxHeaderBytes()))
                .build();
        p.addLast(PipelineNames.H2_CODEC, codec)
                .addLast(PipelineNames.IDLE, new Http2Lifecycle(state.config().limits().idleTimeout().toMillis(), streamsOpen))
                .addLast(PipelineNames.H2_STREAMS, new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
        try {
            var connection = codec.connection().connectionStream();
            codec.connection().local().flowController().incrementWindowSize(connection, UPSTREAM_CONNECTION_WINDOW - Http2CodecUtil.DEFAULT_WINDOW_SIZE);
        } catch (Http2Exception e) {
            throw new IllegalStateException("cannot widen the upstream connection's window", e);
        }
        p.channel().config().setAutoRead(true);
        return codec;
    }

    /**
     * Flow-control windows toward an upstream HTTP/2 connection: what it may send a stream, and all
     * streams, ahead of the proxy reading it (the defaults, 64 KiB, would let a download over a
     * 50 ms path reach about 1.3 MB/s, and one stream a slow client reads would hold up the rest).
     * A stream is read only as fast as its client takes it, so this is also what the proxy buffers
     * at most per stream and per connection.
     */
    static final int UPSTREAM_STREAM_WINDOW = 512 * 1024, UPSTREAM_CONNECTION_WINDOW = 2 * 1024 * 1024;

    /** A stream toward an upstream: frames to HTTP/1.1 objects and back, {@link Http2UpstreamMessages}, the idle watch, {@code handler}. */
    static ChannelInitializer<Http2StreamChannel> upstreamStream(ProxyState state, UpstreamHandler handler, boolean teTrailers) {
        handler.firstByteNanos = state.config().limits().upstreamFirstByteTimeout().toNanos();
        long idleMillis = state.config().limits().idleTimeout().toMillis();
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast(PipelineNames.H2_STREAM_CODEC, new Http2StreamFrameToHttpObjectCodec(false, true))
                        .addLast(PipelineNames.H2_MESSAGES, new Http2UpstreamMessages(teTrailers))
                        .addLast(PipelineNames.IDLE, new IdleStateHandler(idleMillis, 0, 0, TimeUnit.MILLISECONDS))
                        .addLast(PipelineNames.UPSTREAM, handler);
            }
        };
    }

    /** An upstream for an opaque tunnel: nothing until the tunnel exists ({@link org.cyverse.mesa.egress.proxy.agent.AgentPipelines#toTunnel}). */
    public static ChannelInitializer<Channel> bareUpstream() {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                // The relay handler is added once the tunnel exists.
            }
        };
    }
}
