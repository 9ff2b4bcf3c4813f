package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.proxy.Drain;
import org.cyverse.mesa.egress.proxy.PipelineNames;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.connection.RefusalResponses;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;

/**
 * The clocks of a client connection while it speaks HTTP, just before {@link ClientHandler}: the
 * header timeout (a client that connects, or starts a head, and does not finish it within
 * {@code limits.header_timeout}: slowloris), the idle timeout between requests, the drain on
 * stop, and the lingering close after a refusal. The client handler says which phase the
 * connection is in; this handler owns the one timer.
 */
final class ClientTimers extends ChannelInboundHandlerAdapter {

    /** How long a connection closing after a refusal drains the client's input at most. */
    static final long LINGER_MILLIS = 2_000;

    private enum Phase {
        /** Connected, no byte of a request yet: the header timeout runs. */
        AWAITING_FIRST,
        /** Between requests: the idle timeout runs. */
        IDLE,
        /** A head has started: the header timeout runs. */
        READING_HEAD,
        /** A request is being handled: no timer here (the upstream has its own). */
        BUSY,
        /** The header timeout's own 408 is being written: input is dropped, nothing more is handled. */
        CLOSING,
        /** A refusal that ends the connection was written: input is dropped until the close. */
        LINGERING
    }

    private final ProxyContext proxy;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.AWAITING_FIRST;
    private ScheduledFuture<?> timer;

    ClientTimers(ProxyContext proxy) {
        this.proxy = proxy;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            // An accepted connection is active already; so is an intercepted tunnel, which gets no channelActive.
            awaitFirst();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (timer == null && phase == Phase.AWAITING_FIRST) {
            awaitFirst();
        }
        ctx.fireChannelActive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (phase == Phase.LINGERING || phase == Phase.CLOSING) {
            ReferenceCountUtil.release(msg);
            if (phase == Phase.LINGERING) {
                ctx.read();
            }
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == StrictRequestDecoder.HEAD_STARTED) {
            if (phase == Phase.AWAITING_FIRST || phase == Phase.IDLE) {
                phase = Phase.READING_HEAD;
                arm(headerTimeoutMillis(), this::headerTimedOut);
            }
        } else if (evt == Drain.DRAIN) {
            if (phase == Phase.AWAITING_FIRST || phase == Phase.IDLE) {
                ctx.close();
            }
        } else if (phase != Phase.LINGERING && phase != Phase.CLOSING) {
            ctx.fireUserEventTriggered(evt);
        } else {
            io.netty.util.ReferenceCountUtil.release(evt); // an agent's GOAWAY reaches a stream as a buffer
        }
    }

    /** A request head was taken: its handling has no deadline here. */
    void busy() {
        if (phase != Phase.LINGERING && phase != Phase.CLOSING) {
            phase = Phase.BUSY;
            cancel();
        }
    }

    /** The request is over and the connection stays: the next must start within the idle timeout. */
    void idle() {
        if (phase == Phase.LINGERING || phase == Phase.CLOSING) {
            return;
        }
        phase = Phase.IDLE;
        arm(proxy.state().config().limits().idleTimeout().toMillis(), ctx::close);
    }

    /**
     * Closes after a refusal without losing it. Closing a socket that still has unread input (the
     * rest of a refused body, a pipelined request) makes the kernel answer with a reset, and a
     * reset can destroy the refusal before the client has read it: the agent would see
     * "connection reset" instead of the reason and the hint. So the output is ended (plain
     * connections: FIN after the answer), and what the client still sends is read and dropped
     * until it closes, for at most {@value #LINGER_MILLIS} ms.
     */
    void linger() {
        Channel channel = ctx.channel();
        if (!channel.isActive() || phase == Phase.LINGERING) {
            return;
        }
        phase = Phase.LINGERING;
        if (channel instanceof SocketChannel && ctx.pipeline().get(PipelineNames.TLS) == null) {
            ((SocketChannel) channel).shutdownOutput();
        }
        arm(LINGER_MILLIS, ctx::close);
        ctx.read();
    }

    private void awaitFirst() {
        phase = Phase.AWAITING_FIRST;
        // A new connection must start its first request within the header timeout: a client
        // that connects and says nothing (slowloris) does not hold a slot for the idle timeout.
        arm(headerTimeoutMillis(), this::headerTimedOut);
    }

    private void headerTimedOut() {
        if (!ctx.channel().isActive()) {
            return;
        }
        if (phase == Phase.READING_HEAD) {
            // From here on nothing reaches the client handler: a head completing while the 408 is
            // still being written is not admitted behind it.
            phase = Phase.CLOSING;
            Exchange exchange = Exchange.begin(proxy, ctx.channel(), null);
            RefusalResponses.answer(ctx, proxy, exchange, Refusals.of(Reason.HEADER_TIMEOUT, null, proxy.state().profile(), null), true)
                    .addListener(f -> linger());
        } else if (phase == Phase.AWAITING_FIRST) {
            ctx.close(); // nothing was said: nothing to answer
        }
    }

    private long headerTimeoutMillis() {
        return proxy.state().config().limits().headerTimeout().toMillis();
    }

    private void arm(long millis, Runnable task) {
        cancel();
        timer = ctx.executor().schedule(task, millis, TimeUnit.MILLISECONDS);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
