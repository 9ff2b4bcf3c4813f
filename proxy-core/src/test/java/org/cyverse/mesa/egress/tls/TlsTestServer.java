package org.cyverse.mesa.egress.tls;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A TLS server on 127.0.0.1, port 0, presenting one {@link SslContext} from
 * {@link LeafCertificates}: it answers {@code /} with {@link #BODY} and
 * {@code /repo.git/info/refs?service=git-upload-pack} with a minimal smart-HTTP (protocol v0)
 * advertisement of one ref, so that {@code git ls-remote} completes.
 */
final class TlsTestServer implements AutoCloseable {

    static final String BODY = "hello from the intercepted side\n";
    static final String GIT_REF_ID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    static final String GIT_REF = "refs/heads/main";

    private final Channel channel;

    private TlsTestServer(Channel channel) {
        this.channel = channel;
    }

    static TlsTestServer start(EventLoopGroup group, SslContext context) throws InterruptedException {
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(context.newHandler(ch.alloc()), new HttpServerCodec(),
                                new HttpObjectAggregator(64 * 1024), new Responder());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        return new TlsTestServer(channel);
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    /** The git advertisement: pkt-lines (4 hex digits of length, the length counting themselves). */
    static String gitAdvertisement() {
        return pkt("# service=git-upload-pack\n") + "0000"
                + pkt(GIT_REF_ID + " " + GIT_REF + "\0agent=mesa-egress-test\n") + "0000";
    }

    private static String pkt(String payload) {
        return String.format("%04x", payload.length() + 4) + payload;
    }

    private static final class Responder extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean git = request.uri().equals("/repo.git/info/refs?service=git-upload-pack");
            ByteBuf body = Unpooled.copiedBuffer(git ? gitAdvertisement() : BODY, StandardCharsets.UTF_8);
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, git ? "application/x-git-upload-pack-advertisement" : "text/plain")
                    .set(HttpHeaderNames.CACHE_CONTROL, "no-cache")
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // Refusing clients abort the handshake with an alert: expected in half of the tests.
            ctx.close();
        }
    }
}
