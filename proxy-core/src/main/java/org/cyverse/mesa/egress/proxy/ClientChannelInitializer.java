package org.cyverse.mesa.egress.proxy;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpResponseEncoder;

/** Assembles a client pipeline, in the order {@link PipelineNames} lists. Nothing else. */
final class ClientChannelInitializer extends ChannelInitializer<SocketChannel> {

    private final ProxyContext proxy;
    private final ConnectionGate gate;

    ClientChannelInitializer(ProxyContext proxy) {
        this.proxy = proxy;
        this.gate = new ConnectionGate(proxy);
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        int maxHeaderBytes = proxy.state().config().limits().maxHeaderBytes();
        ch.pipeline()
                .addLast(PipelineNames.GATE, gate)
                .addLast(PipelineNames.DECODER, new StrictRequestDecoder(maxHeaderBytes))
                .addLast(PipelineNames.ENCODER, new HttpResponseEncoder())
                .addLast(PipelineNames.CLIENT, new ClientHandler(proxy));
    }
}
