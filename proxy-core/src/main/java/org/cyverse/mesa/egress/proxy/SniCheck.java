package org.cyverse.mesa.egress.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.List;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * Reads the TLS ClientHello at the start of a CONNECT tunnel, before a byte of it goes anywhere,
 * and refuses the tunnel (421 {@code host_mismatch}) when its server name is not the CONNECT
 * target: otherwise an agent could CONNECT to an allowed front host and ask the CDN behind it for
 * another (domain fronting). Data that is not TLS is refused too: the proxy will not carry a
 * protocol it cannot judge. A ClientHello without a server name is let through: the connection
 * still goes only to the vetted address of the CONNECT target.
 *
 * <p>What happens after a match is the {@link Outcome}'s: an opaque tunnel relays the buffered
 * bytes on; an intercepted one terminates TLS with a leaf certificate for the target.
 */
final class SniCheck extends AbstractSniHandler<SslContext> {

    /** What a tunnel does with the verdict. */
    interface Outcome {
        /** The server context to terminate TLS with, or a future of {@code null} to relay opaquely. */
        Future<SslContext> context(ChannelHandlerContext ctx);

        /** The ClientHello passed; {@code sni} is this handler, still in the pipeline with the bytes it holds. */
        void proceed(ChannelHandlerContext sni, SslContext context);

        /** The tunnel is refused: record it and close both sides. */
        void refuse(Refusal refusal);
    }

    private static final int TLS_HANDSHAKE = 22;

    private final Destination target;
    private final Outcome outcome;
    private boolean firstByteChecked;

    SniCheck(Destination target, long timeoutMillis, Outcome outcome) {
        super(timeoutMillis);
        this.target = target;
        this.outcome = outcome;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (!firstByteChecked && in.isReadable()) {
            firstByteChecked = true;
            if (in.getUnsignedByte(in.readerIndex()) != TLS_HANDSHAKE) {
                in.skipBytes(in.readableBytes());
                outcome.refuse(Refusals.badRequest(Refusals.Problem.NOT_TLS, null));
                return;
            }
        }
        super.decode(ctx, in, out);
    }

    @Override
    protected Future<SslContext> lookup(ChannelHandlerContext ctx, String hostname) {
        if (hostname != null && !sameHost(hostname)) {
            return ctx.executor().newFailedFuture(new Mismatch(hostname));
        }
        return outcome.context(ctx);
    }

    private boolean sameHost(String serverName) {
        // RFC 6066 server names carry no port, but some clients (Go's hey, for one) send
        // "host:port"; the host part is what names the server, so that is what must match.
        int colon = serverName.lastIndexOf(':');
        String host = colon > 0 && serverName.indexOf(':') == colon ? serverName.substring(0, colon) : serverName;
        try {
            return Destination.parse(host, target.port()).host().equals(target.host());
        } catch (InvalidDestinationException e) {
            return false;
        }
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, String hostname, Future<SslContext> future) {
        if (future.isSuccess()) {
            outcome.proceed(ctx, future.getNow());
        } else if (future.cause() instanceof Mismatch) {
            outcome.refuse(Refusals.of(Reason.HOST_MISMATCH, target.host(), null, "TLS server name " + hostname));
        } else {
            outcome.refuse(Refusals.of(Reason.UPSTREAM_TLS_ERROR, target.host(), null, "no certificate for " + target.host() + ": "
                    + future.cause()));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException && !(cause.getCause() instanceof IOException)) {
            outcome.refuse(Refusals.badRequest(Refusals.Problem.MALFORMED_CLIENT_HELLO, null));
        } else {
            // The client went away (a reset while its hello was in flight): nothing to judge.
            ctx.close();
        }
    }

    /** The ClientHello named another host. */
    private static final class Mismatch extends Exception {
        Mismatch(String serverName) {
            super("server name " + serverName, null, false, false);
        }
    }
}
