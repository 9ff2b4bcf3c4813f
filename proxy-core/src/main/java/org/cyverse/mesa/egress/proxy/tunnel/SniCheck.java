package org.cyverse.mesa.egress.proxy.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.List;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.tls.ClientHelloReader;

/**
 * Reads the TLS ClientHello at the start of a CONNECT tunnel, before a byte of it goes anywhere,
 * and refuses the tunnel (421 {@code host_mismatch}) when its server name is not the CONNECT
 * target: otherwise an agent could CONNECT to an allowed front host and ask the CDN behind it for
 * another (domain fronting). The hello is read strictly first ({@link ClientHelloReader}: only
 * handshake records, reassembled, one well-formed ClientHello with at most one host_name), so
 * that record framing cannot make this check see no name where the upstream's TLS stack reads
 * one; anything else is refused (400), as is data that is not TLS: the proxy will not carry a
 * protocol it cannot judge. A ClientHello without a server name is let through unless
 * {@code tls.require_sni}: the connection still goes only to the vetted address of the target.
 *
 * <p>What happens after a match is the {@link Outcome}'s: an opaque tunnel relays the buffered
 * bytes on; an intercepted one terminates TLS with a leaf certificate for the target.
 */
public final class SniCheck extends AbstractSniHandler<SslContext> {

    /** What a tunnel does with the verdict. */
    public interface Outcome {
        /** The server context to terminate TLS with, or a future of {@code null} to relay opaquely. */
        Future<SslContext> context(ChannelHandlerContext ctx);

        /** The ClientHello passed; {@code sni} is this handler, still in the pipeline with the bytes it holds. */
        void proceed(ChannelHandlerContext sni, SslContext context);

        /** The tunnel is refused: record it and close both sides. */
        void refuse(Refusal refusal);
    }

    private static final int TLS_HANDSHAKE = 22;
    /** What a hello may take in the buffer before it is complete: the hello, and a record header per byte of it at worst. */
    private static final int MAX_BUFFERED = 6 * ClientHelloReader.MAX_HELLO_BYTES;

    private final Destination target;
    private final Outcome outcome;
    private final boolean requireSni;
    /** Whether the strict reading passed, and the name it found (null: none). */
    private boolean judged;
    private String strictName;
    /** The bytes the judged ClientHello's records take. */
    private int helloLength;

    /** Checks that the ClientHello names {@code target} within {@code timeoutMillis}; {@code outcome} is told what follows. */
    public SniCheck(Destination target, long timeoutMillis, boolean requireSni, Outcome outcome) {
        super(timeoutMillis);
        this.target = target;
        this.outcome = outcome;
        this.requireSni = requireSni;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (!judged) {
            if (!in.isReadable()) {
                return;
            }
            ClientHelloReader.Result hello = ClientHelloReader.read(in);
            if (hello.verdict() == ClientHelloReader.Verdict.NEED_MORE && in.readableBytes() <= MAX_BUFFERED) {
                return; // Netty's reader runs only on the whole hello, so both read the same bytes
            }
            if (hello.verdict() != ClientHelloReader.Verdict.HELLO) {
                boolean tls = in.getUnsignedByte(in.readerIndex()) == TLS_HANDSHAKE;
                in.skipBytes(in.readableBytes());
                outcome.refuse(Refusals.badRequest(tls ? Refusals.Problem.MALFORMED_CLIENT_HELLO : Refusals.Problem.NOT_TLS,
                        tls ? (hello.problem() == null ? "a ClientHello longer than the proxy takes" : hello.problem()) : null));
                return;
            }
            if (hello.serverName() == null && requireSni) {
                in.skipBytes(in.readableBytes());
                outcome.refuse(Refusals.badRequest(Refusals.Problem.MALFORMED_CLIENT_HELLO,
                        "it names no server, and tls.require_sni is set"));
                return;
            }
            judged = true;
            strictName = hello.serverName();
            helloLength = hello.length();
        }
        super.decode(ctx, in, out);
    }

    /** The judged ClientHello's server name ({@code null} when it named none), once it passed. */
    public String serverName() {
        return strictName;
    }

    /** The bytes the judged ClientHello's records take: what follows is the client's next record. */
    public int helloLength() {
        return helloLength;
    }

    @Override
    protected Future<SslContext> lookup(ChannelHandlerContext ctx, String hostname) {
        if (!java.util.Objects.equals(lower(hostname), lower(strictName))) {
            // Netty's reading and the strict one disagree: the upstream might read either; refuse the doubt.
            return ctx.executor().newFailedFuture(new Mismatch(String.valueOf(hostname)));
        }
        if (hostname != null && !sameHost(hostname)) {
            return ctx.executor().newFailedFuture(new Mismatch(hostname));
        }
        return outcome.context(ctx);
    }

    private static String lower(String name) {
        return name == null ? null : name.toLowerCase(java.util.Locale.ROOT);
    }

    private boolean sameHost(String serverName) {
        // RFC 6066 server names carry no port, but some clients (Go's hey, for one) send
        // "host:port"; the host part is what names the server, so that is what must match.
        int colon = serverName.lastIndexOf(':');
        String host = serverName;
        if (colon > 0 && serverName.indexOf(':') == colon) {
            if (!serverName.substring(colon + 1).equals(Integer.toString(target.port()))) {
                return false; // a port, if any, must be the CONNECT target's: "host:anything" is not that host
            }
            host = serverName.substring(0, colon);
        }
        if (host.endsWith(".")) {
            return false; // relayed as written, a trailing dot names no virtual host of the upstream's
        }
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
