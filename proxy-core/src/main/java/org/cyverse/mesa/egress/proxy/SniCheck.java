package org.cyverse.mesa.egress.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.util.concurrent.Future;
import java.util.List;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * Reads the TLS ClientHello at the start of an opaque tunnel, before a byte of it reaches the
 * upstream, and refuses the tunnel (421 {@code host_mismatch}) when its server name is not the
 * CONNECT target: otherwise an agent could CONNECT to an allowed front host and ask the CDN
 * behind it for another (domain fronting). Data that is not TLS is refused too: the proxy will not
 * carry a protocol it cannot judge. A ClientHello without a server name is let through: the
 * connection still goes only to the vetted address of the CONNECT target.
 */
final class SniCheck extends AbstractSniHandler<Boolean> {

    private static final int TLS_HANDSHAKE = 22;

    private final Destination target;
    private final Tunnel tunnel;
    private boolean firstByteChecked;

    SniCheck(Destination target, Tunnel tunnel, long timeoutMillis) {
        super(timeoutMillis);
        this.target = target;
        this.tunnel = tunnel;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (!firstByteChecked && in.isReadable()) {
            firstByteChecked = true;
            if (in.getUnsignedByte(in.readerIndex()) != TLS_HANDSHAKE) {
                in.skipBytes(in.readableBytes());
                tunnel.refuse(Reason.BAD_REQUEST, 400, "tunnel carries no TLS ClientHello");
                return;
            }
        }
        super.decode(ctx, in, out);
    }

    @Override
    protected Future<Boolean> lookup(ChannelHandlerContext ctx, String hostname) {
        return ctx.executor().newSucceededFuture(hostname == null || sameHost(hostname));
    }

    private boolean sameHost(String serverName) {
        try {
            return Destination.parse(serverName, target.port()).host().equals(target.host());
        } catch (InvalidDestinationException e) {
            return false;
        }
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, String hostname, Future<Boolean> future) {
        if (future.isSuccess() && future.getNow()) {
            ctx.pipeline().remove(this); // hands the buffered ClientHello on to the relay
        } else {
            tunnel.refuse(Reason.HOST_MISMATCH, 421, "TLS server name " + hostname + " is not the CONNECT target");
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        tunnel.refuse(Reason.BAD_REQUEST, 400, "malformed TLS ClientHello");
    }
}
