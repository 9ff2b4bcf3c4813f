package org.cyverse.mesa.egress.proxy;

import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.NettyRuntime;
import java.util.Locale;

/**
 * The socket transport the proxy runs on: Linux epoll when Netty's native library loads (no
 * selector bookkeeping per event; edge-triggered readiness), else the JDK's NIO.
 * {@code -Dmesa.egress.transport=nio} forces NIO.
 */
public record Transport(String name, IoHandlerFactory ioHandlers, Class<? extends ServerSocketChannel> serverChannel,
        Class<? extends SocketChannel> clientChannel) {

    /** The transport {@code -Dmesa.egress.transport} asks for ({@code auto}: epoll where it loads). */
    public static Transport configured() {
        return choose(System.getProperty("mesa.egress.transport", "auto"));
    }

    static Transport choose(String wanted) {
        String w = wanted.trim().toLowerCase(Locale.ROOT);
        if (!w.equals("nio") && Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, EpollSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
    }

    /**
     * Event loops to run: one per available CPU (a pod limited to one CPU gets one loop, so a
     * request's client and upstream sides never wait on each other's thread), or
     * {@code -Dio.netty.eventLoopThreads}.
     */
    public static int eventLoops() {
        return Math.max(1, Integer.getInteger("io.netty.eventLoopThreads", NettyRuntime.availableProcessors()));
    }

    /** Netty 4.1's figure for server channels, before 4.2's epoll came to accept one per pass. */
    public static final int ACCEPTS_PER_PASS = 16;

    /**
     * Up to {@link #ACCEPTS_PER_PASS} waiting connections accepted per pass of the event loop.
     * Netty's default for server channels asks its read loop whether "more data" may wait, and
     * epoll's answer compares the accepted descriptor with 1: it accepts one connection per pass.
     * On a busy loop a pass takes milliseconds, so new connections waited in the listen backlog
     * for seconds, and clients that give up on a slow dial (Go's) filled it with dead ones.
     */
    public static RecvByteBufAllocator acceptsPerPass() {
        DefaultMaxMessagesRecvByteBufAllocator accepts = new ServerChannelRecvByteBufAllocator().respectMaybeMoreData(false);
        accepts.maxMessagesPerRead(ACCEPTS_PER_PASS);
        return accepts;
    }
}
