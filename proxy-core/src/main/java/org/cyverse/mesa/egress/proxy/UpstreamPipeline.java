package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.allowlist.Destination;

/** Assembles upstream pipelines for forwarding, in the order {@link PipelineNames} lists. */
final class UpstreamPipeline {

    private UpstreamPipeline() {}

    /** TLS (verified, for intercepted connections) when {@code tls}, then HTTP, idle watch, and the handler. */
    static ChannelInitializer<Channel> forward(ProxyState state, Destination destination, boolean tls, UpstreamHandler handler) {
        int maxHeader = state.config().limits().maxHeaderBytes();
        long idleMillis = state.config().limits().idleTimeout().toMillis();
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (tls) {
                    ch.pipeline().addLast(PipelineNames.TLS, state.upstreamTls().newHandler(ch.alloc(), destination));
                }
                ch.pipeline()
                        .addLast(PipelineNames.CODEC, new HttpClientCodec(maxHeader, maxHeader, 64 * 1024))
                        .addLast(PipelineNames.IDLE, new IdleStateHandler(idleMillis, 0, 0, TimeUnit.MILLISECONDS))
                        .addLast(PipelineNames.UPSTREAM, handler);
            }
        };
    }
}
