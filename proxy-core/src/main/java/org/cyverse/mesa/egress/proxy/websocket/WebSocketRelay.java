package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

/** The end of one side's pipeline once it speaks WebSocket: hands each frame, the close and failures to the {@link WebSocketSession}. */
final class WebSocketRelay extends ChannelInboundHandlerAdapter {

    private final WebSocketSession session;
    private final WebSocketOwner.Side side;

    WebSocketRelay(WebSocketSession session, WebSocketOwner.Side side) {
        this.session = session;
        this.side = side;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof WebSocketFrame frame) {
            session.frame(side, frame);
            return;
        }
        // The end of the 101 from the HTTP decoder this pipeline had: nothing of the WebSocket.
        ReferenceCountUtil.release(msg);
        ctx.read();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        session.gone(side);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            session.idle();
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        session.failed(side, cause);
    }
}
