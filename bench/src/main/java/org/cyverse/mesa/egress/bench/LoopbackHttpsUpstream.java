package org.cyverse.mesa.egress.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;

/**
 * A fast HTTPS upstream on 127.0.0.1 (Netty, one event loop): every request gets {@code 200} with
 * a fixed body framed by Content-Length, on a kept-alive connection. It remembers the last value
 * of one request header, so that a benchmark can check that the proxy injected it, and counts
 * connections and requests, so that it can tell whether the proxy reuses its connections.
 */
public final class LoopbackHttpsUpstream implements AutoCloseable {

    private final byte[] body;
    private final String contentType;
    private final String watchedHeader;
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private volatile String lastWatched;
    private volatile long lastRequestBodyBytes;

    /**
     * @param tls the server's certificate and key, or {@code null} for plain http
     * @param body what every response carries
     * @param contentType its Content-Type
     * @param watchedHeader the request header whose last value {@link #lastWatched} returns
     */
    public LoopbackHttpsUpstream(SSLContext tls, byte[] body, String contentType, String watchedHeader)
            throws InterruptedException {
        this.body = body.clone();
        this.contentType = contentType;
        this.watchedHeader = watchedHeader;
        // No TLS context: plain http (the forward-proxy mode).
        SslContext ssl = tls == null ? null : new JdkSslContext(tls, false, null, IdentityCipherSuiteFilter.INSTANCE, null,
                ClientAuth.NONE, null, false);
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        if (ssl != null) {
                            ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(16 * 1024 * 1024), new Responder());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The watched header's value in the last request, {@code null} when it had none. */
    public String lastWatched() {
        return lastWatched;
    }

    /** Connections accepted so far. */
    /** The body length of the last request. */
    public long lastRequestBodyBytes() {
        return lastRequestBodyBytes;
    }

    public long connections() {
        return connections.get();
    }

    /** Requests answered so far. */
    public long requests() {
        return requests.get();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Responder extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            requests.incrementAndGet();
            lastWatched = request.headers().get(watchedHeader);
            lastRequestBodyBytes = request.content().readableBytes();
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(body));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            HttpUtil.setContentLength(response, body.length);
            HttpUtil.setKeepAlive(response, HttpUtil.isKeepAlive(request));
            ctx.writeAndFlush(response);
        }
    }
}
