package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.PipelineNames;
import org.cyverse.mesa.egress.proxy.body.ResponseLengthHold;
import org.cyverse.mesa.egress.proxy.connection.ConnectionGate;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.http.Http2Lifecycle;
import org.cyverse.mesa.egress.proxy.http.Http2Messages;

/**
 * The agent's side of the proxy's pipelines, in the order {@link PipelineNames} draws: the
 * listener's connections, and what a CONNECT turns them into (an opaque tunnel, an intercepted
 * one speaking HTTP/1.1 or HTTP/2). The codecs, timers and idle watches are made here; the
 * handlers that carry state of an exchange (client, SNI check, relays) are made by their owners
 * and handed in. Nothing here decides.
 */
public final class AgentPipelines {

    private AgentPipelines() {}

    /** A connection to the proxy's listener: gate, strict decoder, encoder, timers, and the client handler. */
    public static ChannelInitializer<SocketChannel> client(ProxyContext proxy, Supplier<ChannelHandler> clientHandler) {
        ConnectionGate gate = new ConnectionGate(proxy);
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(PipelineNames.GATE, gate);
                addHttp(ch.pipeline(), proxy, clientHandler.get());
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
