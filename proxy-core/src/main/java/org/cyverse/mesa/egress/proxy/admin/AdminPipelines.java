package org.cyverse.mesa.egress.proxy.admin;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import org.cyverse.mesa.egress.proxy.PipelineNames;

/** The admin listener's pipeline, in the order {@link PipelineNames} draws. */
public final class AdminPipelines {

    private AdminPipelines() {}

    /** The admin listener: HTTP, whole requests of at most 8 KiB, the admin handler. */
    public static ChannelInitializer<SocketChannel> admin(ChannelHandler admin) {
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
}
