package org.cyverse.mesa.egress.proxy.upstream;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.EventLoop;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.Transport;

/**
 * SPEC.md decision step 4: resolve once (off the event loop), drop every address the guard
 * refuses, dial the first that passed. No second lookup happens between the check and the dial,
 * so a DNS answer that changes in between (DNS rebinding) cannot move the connection.
 */
public final class UpstreamDialer {

    private static final Logger LOG = Logger.getLogger(UpstreamDialer.class.getName());

    private final HostResolver resolver;
    private final ExecutorService dnsExecutor;
    private final Class<? extends SocketChannel> channelType;

    /** Resolves with {@code resolver} on {@code dnsExecutor}, dials with {@code transport}'s channels. */
    public UpstreamDialer(HostResolver resolver, ExecutorService dnsExecutor, Transport transport) {
        this.resolver = resolver;
        this.dnsExecutor = dnsExecutor;
        this.channelType = transport.clientChannel();
    }

    /**
     * Dials {@code destination} on {@code loop}; the promise completes on that loop with the
     * connected channel, or fails with a {@link DialFailure}.
     */
    public Promise<Channel> dial(Destination destination, ProxyState state, EventLoop loop, ChannelInitializer<Channel> init) {
        Promise<Channel> promise = loop.newPromise();
        resolve(destination, state).whenComplete((addresses, error) -> loop.execute(() -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException ? error.getCause() : error;
                promise.tryFailure(cause instanceof DialFailure ? cause : failure(Reason.DNS_FAILURE, destination, state, null));
                return;
            }
            InetAddress chosen = null;
            List<String> refused = new ArrayList<>();
            AddressGuard guard = state.guard();
            for (InetAddress address : addresses) {
                AddressGuard.Verdict verdict = guard.check(address);
                if (verdict.permitted()) {
                    chosen = address;
                    break;
                }
                refused.add(address.getHostAddress() + " (" + verdict.range() + ")");
            }
            if (chosen == null) {
                // The addresses go to the operator's log, not to the client: an agent must not be
                // able to use the proxy as a resolver that maps internal names for it.
                LOG.info(() -> "address guard refused every address of " + destination.host() + ": " + String.join(", ", refused));
                promise.tryFailure(failure(Reason.ADDRESS_NOT_ALLOWED, destination, state, null));
                return;
            }
            connect(destination, new InetSocketAddress(chosen, destination.port()), state, loop, init, promise);
        }));
        return promise;
    }

    private CompletableFuture<List<InetAddress>> resolve(Destination destination, ProxyState state) {
        byte[] literal = destination.addressBytes();
        if (literal != null) {
            try {
                return CompletableFuture.completedFuture(List.of(InetAddress.getByAddress(literal)));
            } catch (UnknownHostException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        long timeoutMillis = state.config().network().dnsTimeout().toMillis();
        CompletableFuture<List<InetAddress>> lookup = CompletableFuture.supplyAsync(() -> {
            try {
                return resolver.resolve(destination.host());
            } catch (UnknownHostException e) {
                throw new CompletionException(e);
            }
        }, dnsExecutor);
        return lookup.orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).handle((found, error) -> {
            Throwable cause = error instanceof CompletionException ? error.getCause() : error;
            String detail;
            if (cause == null && !found.isEmpty()) {
                return found;
            } else if (cause == null) {
                detail = "no addresses";
            } else if (cause instanceof TimeoutException) {
                detail = "timed out after " + timeoutMillis + " ms (network.dns_timeout)";
            } else if (cause instanceof UnknownHostException) {
                detail = "no such host";
            } else {
                detail = cause.getClass().getSimpleName();
            }
            throw new CompletionException(failure(Reason.DNS_FAILURE, destination, state, detail));
        });
    }

    private void connect(Destination destination, InetSocketAddress address, ProxyState state, EventLoop loop,
            ChannelInitializer<Channel> init, Promise<Channel> promise) {
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(channelType)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        state.config().network().connectTimeout().toMillis()))
                .handler(init);
        bootstrap.connect(address).addListener((ChannelFutureListener) f -> {
            if (f.isSuccess()) {
                promise.trySuccess(f.channel());
                return;
            }
            Throwable cause = f.cause();
            Reason reason = cause instanceof ConnectTimeoutException ? Reason.UPSTREAM_TIMEOUT : Reason.UPSTREAM_UNREACHABLE;
            String detail = address.getAddress().getHostAddress() + " port " + address.getPort() + ": "
                    + (cause == null ? "cancelled" : cause.getClass().getSimpleName());
            promise.tryFailure(failure(reason, destination, state, detail));
        });
    }

    private static DialFailure failure(Reason reason, Destination destination, ProxyState state, String detail) {
        return new DialFailure(Refusals.of(reason, destination.host(), state.profile(), detail));
    }
}
