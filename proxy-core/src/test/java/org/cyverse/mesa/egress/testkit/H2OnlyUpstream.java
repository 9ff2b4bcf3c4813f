package org.cyverse.mesa.egress.testkit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * A real HTTP/2 server on loopback that speaks nothing else: TLS whose ALPN offers {@code h2}
 * alone (a client offering only {@code http/1.1} gets the {@code no_application_protocol}
 * alert, as gRPC servers answer), Netty's frame codec and multiplexer, one handler per stream.
 * It answers as a gRPC server would, with framing and trailers:
 * <ul>
 *   <li>{@code /echo.Echo/Say}: {@code 200 application/grpc}, one length-prefixed message
 *       ({@code "you said: MESSAGE"}), then trailers {@code grpc-status: 0},
 *       {@code grpc-message: OK} and {@code x-echo-key: KEY}, KEY the {@code x-api-key} it got;</li>
 *   <li>{@code /echo.Echo/Quote}: as {@code Say}, the message {@code "your key is KEY"};</li>
 *   <li>{@code /echo.Echo/Missing}: a trailers-only answer, {@code grpc-status: 12} in the one
 *       HEADERS frame that ends the stream;</li>
 *   <li>{@code /plain}: {@code 200 text/plain} {@code "plain over h2; key KEY"};</li>
 *   <li>{@code /slow}: as {@code /plain}, 300 ms later (so that requests overlap);</li>
 *   <li>{@code /reset}: RST_STREAM {@code INTERNAL_ERROR}, no answer;</li>
 *   <li>{@code /short}: a HEADERS frame that declares {@code content-length: 100} and ends the
 *       stream (no body);</li>
 *   <li>{@code /early}: as soon as the request's HEADERS came (its body still coming),
 *       {@code 413} with a body that ends the stream, then RST_STREAM {@code NO_ERROR}, as RFC
 *       9113 section 8.1 lets a server stop a body it does not want.</li>
 * </ul>
 * Each request is recorded ({@link #seen}) with its headers, body, trailers and whether the
 * stream ended cleanly; {@link #connections} counts the TCP connections accepted.
 */
public final class H2OnlyUpstream implements AutoCloseable {

    /** One request as the server saw it; {@code ended}: END_STREAM came (never for a stream the client reset). */
    public record Seen(Http2Headers headers, byte[] body, Http2Headers trailers, boolean ended) {
        public String header(String name) {
            CharSequence value = headers.get(name);
            return value == null ? null : value.toString();
        }
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final AtomicInteger connections = new AtomicInteger();
    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();

    public H2OnlyUpstream(SSLContext tls) throws InterruptedException {
        this(tls, 100);
    }

    /** @param maxConcurrentStreams the SETTINGS_MAX_CONCURRENT_STREAMS it announces */
    public H2OnlyUpstream(SSLContext tls, int maxConcurrentStreams) throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        SSLEngine engine = tls.createSSLEngine();
                        engine.setUseClientMode(false);
                        SSLParameters parameters = engine.getSSLParameters();
                        parameters.setApplicationProtocols(new String[] {"h2"});
                        engine.setSSLParameters(parameters);
                        ch.pipeline().addLast(new SslHandler(engine))
                                .addLast(Http2FrameCodecBuilder.forServer().initialSettings(io.netty.handler.codec.http2.Http2Settings
                                        .defaultSettings().maxConcurrentStreams(maxConcurrentStreams)).build())
                                .addLast(new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                                    @Override
                                    protected void initChannel(Http2StreamChannel stream) {
                                        stream.pipeline().addLast(new StreamHandler());
                                    }
                                }));
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** TCP connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    /** The next request seen, waiting up to 5 s; {@code null} when none came. */
    public Seen seen() throws InterruptedException {
        return seen.poll(5, TimeUnit.SECONDS);
    }

    /** Forgets the requests seen so far. */
    public void forget() {
        seen.clear();
    }

    /** A gRPC message: the 5-byte prefix (not compressed, the length) and {@code message}. */
    public static byte[] grpcFrame(String message) {
        byte[] payload = message.getBytes(StandardCharsets.UTF_8);
        ByteBuf frame = Unpooled.buffer(5 + payload.length).writeByte(0).writeInt(payload.length).writeBytes(payload);
        return ByteBufUtil.getBytes(frame);
    }

    /** The message of one gRPC frame. */
    public static String grpcMessage(byte[] frame) {
        ByteBuf in = Unpooled.wrappedBuffer(frame);
        in.skipBytes(1);
        int length = in.readInt();
        return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
    }

    private final class StreamHandler extends ChannelInboundHandlerAdapter {
        private Http2Headers headers;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private boolean recorded;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (recorded && !(msg instanceof Http2HeadersFrame) && headers != null && "/early".equals(String.valueOf(headers.path()))) {
                ReferenceCountUtil.release(msg); // the rest of a body it stopped
                return;
            }
            try {
                if (msg instanceof Http2HeadersFrame frame) {
                    if (headers == null) {
                        headers = frame.headers();
                        if (frame.isEndStream()) {
                            answer(ctx, null);
                        } else if ("/early".equals(String.valueOf(headers.path()))) {
                            recorded = true;
                            seen.add(new Seen(headers, new byte[0], null, false));
                            // After this read, where a stream's flush waits for the connection's: the DATA must be
                            // flushed before the reset (Netty's flow controller drops DATA still queued at one), and
                            // the reset follows at once, so that the proxy reads the frames together.
                            ctx.executor().execute(() -> {
                                ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("413").add("content-type", "text/plain")));
                                ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.copiedBuffer("too large, stop", StandardCharsets.UTF_8), true));
                                ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR));
                            });
                        }
                    } else {
                        answer(ctx, frame.headers());
                    }
                } else if (msg instanceof Http2DataFrame data) {
                    byte[] bytes = ByteBufUtil.getBytes(data.content());
                    body.write(bytes, 0, bytes.length);
                    if (data.isEndStream()) {
                        answer(ctx, null);
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!recorded && headers != null) {
                recorded = true;
                seen.add(new Seen(headers, body.toByteArray(), null, false));
            }
        }

        private void answer(ChannelHandlerContext ctx, Http2Headers trailers) {
            recorded = true;
            seen.add(new Seen(headers, body.toByteArray(), trailers, true));
            String path = String.valueOf(headers.path());
            String key = String.valueOf(headers.get("x-api-key"));
            switch (path) {
                case "/echo.Echo/Say", "/echo.Echo/Quote" -> {
                    String said = body.size() >= 5 ? grpcMessage(body.toByteArray()) : "";
                    ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200").add("content-type", "application/grpc")));
                    ctx.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(grpcFrame(path.endsWith("Say") ? "you said: " + said
                            : "your key is " + key))));
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().add("grpc-status", "0")
                            .add("grpc-message", "OK").add("x-echo-key", key), true));
                }
                case "/echo.Echo/Missing" -> ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
                        .add("content-type", "application/grpc").add("grpc-status", "12").add("grpc-message", "no such method"), true));
                case "/plain" -> plain(ctx, key);
                case "/slow" -> ctx.executor().schedule(() -> plain(ctx, key), 300, TimeUnit.MILLISECONDS);
                case "/reset" -> ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.INTERNAL_ERROR));
                case "/short" -> ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
                        .add("content-length", "100"), true));
                default -> ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("404"), true));
            }
        }

        private void plain(ChannelHandlerContext ctx, String key) {
            ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200").add("content-type", "text/plain")));
            ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.copiedBuffer("plain over h2; key " + key, StandardCharsets.UTF_8), true));
        }
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
