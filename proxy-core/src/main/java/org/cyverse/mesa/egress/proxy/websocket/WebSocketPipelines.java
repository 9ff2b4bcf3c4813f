package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.Utf8FrameValidator;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.proxy.PipelineNames;

/**
 * Rewires both sides of a connection once its WebSocket was accepted, in the order
 * {@link PipelineNames} draws: frames both ways instead of HTTP messages, the idle watch of a
 * WebSocket, and the relays to its {@link WebSocketSession}. Nothing here decides.
 */
final class WebSocketPipelines {

    private WebSocketPipelines() {}

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
}
