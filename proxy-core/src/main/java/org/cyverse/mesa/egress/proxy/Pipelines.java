package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.Utf8FrameValidator;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.cyverse.mesa.egress.allowlist.Destination;

/**
 * The one place that assembles and rewires the proxy's pipelines, in the orders
 * {@link PipelineNames} lists. The codecs, timers and idle watches are made here; the handlers
 * that carry state of an exchange (client, SNI check, relays, upstream) are made by their owners
 * and handed in. Nothing here decides.
 */
final class Pipelines {

    private Pipelines() {}

    /** A connection to the proxy's listener: gate, strict decoder, encoder, timers, and the client handler. */
    static ChannelInitializer<SocketChannel> client(ProxyContext proxy, Supplier<ChannelHandler> clientHandler) {
        ConnectionGate gate = new ConnectionGate(proxy);
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(PipelineNames.GATE, gate);
                addHttp(ch.pipeline(), proxy, clientHandler.get());
            }
        };
    }

    /** The admin listener: HTTP, whole requests of at most 8 KiB, the admin handler. */
    static ChannelInitializer<SocketChannel> admin(ChannelHandler admin) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline()
                        .addLast(PipelineNames.ADMIN_CODEC, new HttpServerCodec())
                        .addLast(PipelineNames.ADMIN_AGGREGATOR, new HttpObjectAggregator(8192))
                        .addLast(PipelineNames.ADMIN, admin);
            }
        };
    }

    /** An upstream for forwarding: verified TLS when {@code tls} (intercepted connections), HTTP/1.1, idle watch, the handler. */
    static ChannelInitializer<Channel> upstream(ProxyState state, Destination destination, boolean tls, UpstreamHandler handler) {
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
    static Http2FrameCodec upstreamHttp2(ChannelPipeline p, ProxyState state, java.util.function.BooleanSupplier streamsOpen) {
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
        } catch (io.netty.handler.codec.http2.Http2Exception e) {
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

    /** An upstream for an opaque tunnel: nothing until the tunnel exists ({@link #toTunnel}). */
    static ChannelInitializer<Channel> bareUpstream() {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                // The relay handler is added once the tunnel exists.
            }
        };
    }

    /**
     * Turns the client's HTTP pipeline into an opaque tunnel's: idle watch, SNI check, relay; the
     * upstream gets its relay. The decoder goes last: removing it hands the bytes it holds (the
     * start of the ClientHello) to the SNI check.
     */
    static void toTunnel(ChannelPipeline client, long idleMillis, ChannelHandler sniCheck, ChannelHandler relayFromClient,
            Channel upstream, ChannelHandler relayFromUpstream) {
        upstream.pipeline().addLast(PipelineNames.RELAY, relayFromUpstream);
        client.addAfter(PipelineNames.CLIENT, PipelineNames.IDLE, new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
        client.addAfter(PipelineNames.IDLE, PipelineNames.SNI_CHECK, sniCheck);
        client.addAfter(PipelineNames.SNI_CHECK, PipelineNames.RELAY, relayFromClient);
        removeHttp(client);
    }

    /** Turns the client's HTTP pipeline into an intercepted tunnel's first stage: the SNI check alone. */
    static void toInterception(ChannelPipeline client, ChannelHandler sniCheck) {
        client.addAfter(PipelineNames.CLIENT, PipelineNames.SNI_CHECK, sniCheck);
        removeHttp(client);
    }

    /**
     * Once the ClientHello passed: TLS terminated with the leaf certificate, then the protocol
     * ALPN chose ({@link ProtocolSwitch}, which calls {@link #interceptedHttp} or
     * {@link #interceptedHttp2}). The SNI check is replaced last, so that it hands the ClientHello
     * it holds to the TLS handler.
     */
    static void interceptedTls(ChannelPipeline client, SslHandler tls, ProtocolSwitch protocol) {
        client.addAfter(PipelineNames.SNI_CHECK, PipelineNames.PROTOCOL, protocol);
        client.replace(PipelineNames.SNI_CHECK, PipelineNames.TLS, tls);
    }

    /** HTTP/1.1 inside an intercepted tunnel, with a client handler for the requests inside. */
    static void interceptedHttp(ChannelPipeline client, ProxyContext proxy, ChannelHandler clientHandler) {
        addHttp(client, proxy, clientHandler);
    }

    /**
     * HTTP/2 inside an intercepted tunnel: Netty's frame codec (SETTINGS: at most
     * {@link #MAX_CONCURRENT_STREAMS} streams, header lists within {@code limits.max_header_bytes};
     * its guards against RST, CONTINUATION, SETTINGS and PING floods on), the idle watch and
     * drain ({@link Http2Lifecycle}), and one
     * child channel per stream, which speaks HTTP/1.1 objects to a client handler of its own
     * ({@code streamHandler}). The connection reads on its own; each stream reads only when its
     * handler asks, so HTTP/2 flow control holds a sender back while a body waits.
     */
    static void interceptedHttp2(ChannelPipeline client, ProxyContext proxy, Destination destination, Supplier<ChannelHandler> streamHandler) {
        var limits = proxy.state().config().limits();
        Http2FrameCodec codec = Http2ServerCodec.of(Http2Settings.defaultSettings().maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                .maxHeaderListSize(limits.maxHeaderBytes()), proxy, destination);
        client.addLast(PipelineNames.H2_CODEC, codec)
                .addLast(PipelineNames.IDLE, new Http2Lifecycle(limits.idleTimeout().toMillis(), null))
                .addLast(PipelineNames.H2_STREAMS, new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                    @Override
                    protected void initChannel(Http2StreamChannel stream) {
                        stream.config().setAutoRead(false);
                        stream.pipeline()
                                .addLast(PipelineNames.H2_REQUEST_LINES, new Http2RequestLines())
                                .addLast(PipelineNames.H2_STREAM_CODEC, new Http2StreamFrameToHttpObjectCodec(true, true))
                                .addLast(PipelineNames.H2_MESSAGES, new Http2Messages())
                                .addLast(PipelineNames.LENGTH_HOLD, new ResponseLengthHold(proxy.responseHoldBudget))
                                .addLast(PipelineNames.TIMERS, new ClientTimers(proxy))
                                .addLast(PipelineNames.CLIENT, streamHandler.get());
                    }
                }));
        client.channel().config().setAutoRead(true);
    }

    /** SETTINGS_MAX_CONCURRENT_STREAMS the proxy announces to an HTTP/2 client (each stream may hold an upstream connection). */
    static final int MAX_CONCURRENT_STREAMS = 100;

    /**
     * The first step of a WebSocket's rewiring: each side can carry frames (the HTTP encoders pass
     * what is not HTTP through), before either side's HTTP decoder hands on bytes that follow the
     * handshake. The client's side does not mask; the upstream's does (RFC 6455 section 5.3).
     */
    static void webSocketEncoders(ChannelPipeline client, ChannelPipeline upstream) {
        client.addBefore(PipelineNames.DECODER, PipelineNames.WS_ENCODER, new WebSocket13FrameEncoder(false));
        upstream.addBefore(PipelineNames.CODEC, PipelineNames.WS_ENCODER, new WebSocket13FrameEncoder(true));
    }

    /**
     * The rest, once the {@code 101} went to the client: frame decoders (masked frames from the
     * client only, unmasked from the upstream only, no extensions, frames of at most
     * {@code maxFrame} bytes, a violation answered with its close code), UTF-8 validation, the
     * WebSocket idle watch and the relays. Each HTTP decoder is replaced last, so that the bytes
     * it holds after the handshake reach the frame decoder in its place.
     */
    static void toWebSocket(ChannelPipeline client, ChannelPipeline upstream, WebSocketSession session, int maxFrame, long idleMillis) {
        client.remove(PipelineNames.ENCODER);
        client.remove(PipelineNames.LENGTH_HOLD);
        client.remove(PipelineNames.TIMERS);
        client.replace(PipelineNames.CLIENT, PipelineNames.WS_RELAY, new WebSocketRelay(session, WebSocketOwner.Side.CLIENT));
        client.addBefore(PipelineNames.WS_RELAY, PipelineNames.IDLE, new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
        client.addAfter(PipelineNames.DECODER, PipelineNames.WS_UTF8, new Utf8FrameValidator(true));
        client.replace(PipelineNames.DECODER, PipelineNames.WS_DECODER, new WebSocket13FrameDecoder(webSocketDecoding(true, maxFrame)));
        upstream.replace(PipelineNames.UPSTREAM, PipelineNames.WS_RELAY, new WebSocketRelay(session, WebSocketOwner.Side.UPSTREAM));
        upstream.replace(PipelineNames.IDLE, PipelineNames.IDLE, new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
        upstream.addAfter(PipelineNames.CODEC, PipelineNames.WS_UTF8, new Utf8FrameValidator(true));
        upstream.replace(PipelineNames.CODEC, PipelineNames.WS_DECODER, new WebSocket13FrameDecoder(webSocketDecoding(false, maxFrame)));
    }

    private static WebSocketDecoderConfig webSocketDecoding(boolean fromClient, int maxFrame) {
        return WebSocketDecoderConfig.newBuilder()
                .expectMaskedFrames(fromClient)
                .allowMaskMismatch(false)
                .allowExtensions(false)
                .maxFramePayloadLength(maxFrame)
                .closeOnProtocolViolation(true)
                .build();
    }

    private static void addHttp(ChannelPipeline p, ProxyContext proxy, ChannelHandler clientHandler) {
        p.addLast(PipelineNames.DECODER, new StrictRequestDecoder(proxy.state().config().limits().maxHeaderBytes()))
                .addLast(PipelineNames.ENCODER, new HttpResponseEncoder())
                .addLast(PipelineNames.LENGTH_HOLD, new ResponseLengthHold(proxy.responseHoldBudget))
                .addLast(PipelineNames.TIMERS, new ClientTimers(proxy))
                .addLast(PipelineNames.CLIENT, clientHandler);
    }

    private static void removeHttp(ChannelPipeline p) {
        p.remove(PipelineNames.ENCODER);
        p.remove(PipelineNames.LENGTH_HOLD);
        p.remove(PipelineNames.CLIENT);
        p.remove(PipelineNames.TIMERS);
        p.remove(PipelineNames.DECODER); // last: hands any bytes it holds on
    }
}
