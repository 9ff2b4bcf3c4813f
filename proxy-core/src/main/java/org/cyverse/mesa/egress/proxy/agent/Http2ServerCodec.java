package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Settings;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;

/**
 * Netty's HTTP/2 frame codec for the agent's side of an intercepted tunnel, with what it does on
 * a connection error recorded: Netty sends the GOAWAY RFC 9113 owes (PROTOCOL_ERROR,
 * ENHANCE_YOUR_CALM for a rapid reset or a flood of control frames, COMPRESSION_ERROR, ...) and
 * closes; this adds the audit record ({@code bad_request}, the rule naming the error), the
 * counter {@code mesa_egress_http2_connection_errors_total{error}} and a log line.
 */
final class Http2ServerCodec extends Http2FrameCodec {

    private static final Logger LOG = Logger.getLogger(Http2ServerCodec.class.getName());

    private final ProxyContext proxy;
    private final Destination destination;
    private boolean recorded;

    private Http2ServerCodec(Http2ConnectionEncoder encoder, Http2ConnectionDecoder decoder, Http2Settings settings, ProxyContext proxy,
            Destination destination) {
        super(encoder, decoder, settings, false, true);
        this.proxy = proxy;
        this.destination = destination;
    }

    /** The codec with {@code settings}, validating headers, Netty's flood guards at their defaults. */
    static Http2FrameCodec of(Http2Settings settings, ProxyContext proxy, Destination destination) {
        return new Builder(proxy, destination).initialSettings(settings).validateHeaders(true).build();
    }

    private static final class Builder extends Http2FrameCodecBuilder {
        private final ProxyContext proxy;
        private final Destination destination;

        Builder(ProxyContext proxy, Destination destination) {
            this.proxy = proxy;
            this.destination = destination;
            server(true);
        }

        @Override
        protected Http2FrameCodec build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
            return new Http2ServerCodec(encoder, decoder, initialSettings, proxy, destination);
        }
    }

    @Override
    protected void onConnectionError(ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
        if (!recorded) {
            recorded = true;
            String error = http2Ex == null ? "INTERNAL_ERROR" : http2Ex.error().name();
            String detail = cause == null ? "" : String.valueOf(cause.getMessage());
            LOG.info(() -> "HTTP/2 connection for " + destination.authority() + " ended with GOAWAY " + error + ": " + detail);
            proxy.metrics.http2ConnectionError(error);
            Exchange.beginHttp2Connection(proxy, ctx.channel()).finishRefused(proxy, Refusals.http2(error, detail, destination.host()));
        }
        super.onConnectionError(ctx, outbound, cause, http2Ex);
    }
}
