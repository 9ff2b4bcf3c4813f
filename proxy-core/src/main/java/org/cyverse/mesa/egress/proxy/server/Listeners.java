package org.cyverse.mesa.egress.proxy.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.config.HostAndPort;
import org.cyverse.mesa.egress.proxy.Transport;
import org.cyverse.mesa.egress.tls.TlsProvider;

/**
 * The running proxy's two listeners, the proxy's and the admin port's, and the event loops of the
 * configured {@link Transport} that accept and serve them (and dial the upstreams). A listener that
 * cannot bind closes the whole proxy ({@code failed}) before the bind's failure is thrown.
 */
final class Listeners {

    private final Transport transport = Transport.configured();
    private final String tlsProvider = TlsProvider.describe(TlsProvider.configured());
    /** One group for accepting and serving: an accepted connection does not cross threads on a one-CPU pod. */
    private final EventLoopGroup workerGroup = new MultiThreadIoEventLoopGroup(Transport.eventLoops(), transport.ioHandlers());
    private final Runnable failed;
    private Channel proxyChannel;
    private Channel adminChannel;

    /** @param failed closes the proxy when a listener cannot bind */
    Listeners(Runnable failed) {
        this.failed = failed;
    }

    Transport transport() {
        return transport;
    }

    /** Binds the proxy listener; {@code clients} assembles each connection's pipeline. */
    void bindProxy(HostAndPort address, ChannelInitializer<SocketChannel> clients) throws IOException {
        proxyChannel = bind(new ServerBootstrap()
                .group(workerGroup)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transport.acceptsPerPass())
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(clients), address, "listen");
    }

    /** Binds the admin listener; {@code admin} assembles each connection's pipeline. */
    void bindAdmin(HostAndPort address, ChannelInitializer<SocketChannel> admin) throws IOException {
        adminChannel = bind(new ServerBootstrap()
                .group(workerGroup)
                .channel(transport.serverChannel())
                .childHandler(admin), address, "admin");
    }

    private Channel bind(ServerBootstrap bootstrap, HostAndPort address, String key) throws IOException {
        try {
            return bootstrap.bind(address.host(), address.port()).syncUninterruptibly().channel();
        } catch (Exception e) {
            failed.run();
            throw new IOException("cannot listen on " + address + " (" + key + "): " + e.getMessage(), e);
        }
    }

    /** Channel of the proxy's listener (tests: its event loop). */
    Channel proxy() {
        return proxyChannel;
    }

    /** The transport, the number of event loops and the TLS implementation: "epoll, 2 event loops, BoringSSL". */
    String describe() {
        int loops = Transport.eventLoops();
        return transport.name() + ", " + loops + (loops == 1 ? " event loop, " : " event loops, ") + tlsProvider;
    }

    InetSocketAddress proxyAddress() {
        return (InetSocketAddress) proxyChannel.localAddress();
    }

    InetSocketAddress adminAddress() {
        return (InetSocketAddress) adminChannel.localAddress();
    }

    /** Stops accepting on the proxy listener, and waits until it is closed. */
    void stopAccepting() {
        if (proxyChannel != null) {
            proxyChannel.close().syncUninterruptibly();
        }
    }

    /** Closes both listeners, without waiting. */
    void close() {
        if (proxyChannel != null) {
            proxyChannel.close();
        }
        if (adminChannel != null) {
            adminChannel.close();
        }
    }

    /** Ends the event loops, and with them every channel still open on them. */
    void shutdown() {
        workerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
