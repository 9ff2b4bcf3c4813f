package org.cyverse.mesa.egress.testkit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import javax.net.ssl.SSLContext;

/**
 * A real WebSocket server on loopback (Netty's own server handshaker and frame codec, TLS when
 * given a context), recording what it received. Each connection's path says what it does:
 * {@code /echo} answers each message with the same message; {@code /hello} also sends
 * {@code hello} in the same write as its {@code 101}; a text message {@code say:TEXT} is answered
 * with {@code TEXT} split into two fragments in the middle, and {@code echo-key} with
 * {@code yours is KEY ok} so split, KEY the handshake's {@code x-api-key}; {@code /bad-accept} answers the
 * handshake with a {@code 101} whose {@code Sec-WebSocket-Accept} is wrong. Close frames are
 * recorded and answered.
 */
public final class WebSocketUpstream implements AutoCloseable {

    /** A handshake the server saw: its path and its fields (lowercase names). */
    public record Handshake(String uri, Map<String, String> headers) {}

    private static final io.netty.util.AttributeKey<Map<String, String>> HANDSHAKE = io.netty.util.AttributeKey.valueOf("handshake");
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final List<Handshake> handshakes = new CopyOnWriteArrayList<>();
    /** Text messages received (binary ones as {@code binary:HEX}). */
    public final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    /** Close codes received ({@code -1} for a close frame without one). */
    public final BlockingQueue<Integer> closes = new LinkedBlockingQueue<>();

    public WebSocketUpstream(SSLContext tls) throws InterruptedException {
        SslContext ssl = tls == null ? null : new JdkSslContext(tls, false, ClientAuth.NONE);
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (ssl != null) {
                            ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536), new Handshakes(),
                                new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder().websocketPath("/")
                                        .checkStartsWith(true).handleCloseFrames(false).allowExtensions(false).build()),
                                new Messages());
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    public List<Handshake> handshakes() {
        return handshakes;
    }

    /** Records each handshake; answers {@code /bad-accept} itself. */
    private final class Handshakes extends SimpleChannelInboundHandler<FullHttpRequest> {
        Handshakes() {
            super(false);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            Map<String, String> headers = new TreeMap<>();
            request.headers().forEach(e -> headers.merge(e.getKey().toLowerCase(java.util.Locale.ROOT), e.getValue(), (a, b) -> a + ", " + b));
            handshakes.add(new Handshake(request.uri(), headers));
            ctx.channel().attr(HANDSHAKE).set(headers);
            if (request.uri().startsWith("/bad-accept")) {
                request.release();
                DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
                response.headers().set("Upgrade", "websocket").set("Connection", "Upgrade").set("Sec-WebSocket-Accept", "d3Jvbmc=");
                ctx.writeAndFlush(response);
                return;
            }
            ctx.fireChannelRead(request);
        }
    }

    private final class Messages extends SimpleChannelInboundHandler<WebSocketFrame> {
        Messages() {
            super(false);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete done && done.requestUri().startsWith("/hello")) {
                ctx.writeAndFlush(new TextWebSocketFrame("hello"));
            }
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof CloseWebSocketFrame close) {
                closes.add(close.statusCode());
                ctx.writeAndFlush(close).addListener(ChannelFutureListener.CLOSE);
            } else if (frame instanceof TextWebSocketFrame text) {
                String message = text.text();
                received.add(message);
                if (message.startsWith("say:") || message.equals("echo-key")) {
                    String said = message.equals("echo-key") ? "yours is " + ctx.channel().attr(HANDSHAKE).get().get("x-api-key") + " ok"
                            : message.substring(4);
                    byte[] say = said.getBytes(StandardCharsets.UTF_8);
                    int half = say.length / 2;
                    ctx.write(new TextWebSocketFrame(false, 0, Unpooled.wrappedBuffer(say, 0, half)));
                    ctx.writeAndFlush(new ContinuationWebSocketFrame(true, 0, Unpooled.wrappedBuffer(say, half, say.length - half)));
                    text.release();
                } else {
                    ctx.writeAndFlush(text);
                }
            } else if (frame instanceof BinaryWebSocketFrame binary) {
                received.add("binary:" + ByteBufUtil.hexDump(binary.content()));
                ctx.writeAndFlush(binary);
            } else if (frame instanceof PingWebSocketFrame ping) {
                ctx.writeAndFlush(new PongWebSocketFrame(ping.content()));
            } else {
                frame.release();
            }
        }
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
