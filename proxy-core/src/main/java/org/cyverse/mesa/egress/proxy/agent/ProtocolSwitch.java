package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.allowlist.Destination;

/**
 * After the client's TLS handshake on an intercepted tunnel: HTTP/2 when ALPN chose {@code h2},
 * HTTP/1.1 otherwise (also when the client offered no ALPN). What comes of either is
 * {@link AgentPipelines}'; the bytes read meanwhile are handed on once it is in place.
 */
final class ProtocolSwitch extends ApplicationProtocolNegotiationHandler {

    private static final Logger LOG = Logger.getLogger(ProtocolSwitch.class.getName());

    private final Destination destination;
    private final Consumer<Boolean> configure;

    /** @param configure called with {@code true} for HTTP/2, {@code false} for HTTP/1.1, on the channel's loop */
    ProtocolSwitch(Destination destination, Consumer<Boolean> configure) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.destination = destination;
        this.configure = configure;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        configure.accept(ApplicationProtocolNames.HTTP_2.equals(protocol));
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        logClientFailure(destination, new io.netty.handler.codec.DecoderException(cause));
        ctx.close();
    }

    /**
     * Logs a client connection's failure: on an intercepted tunnel a TLS failure is most often an
     * agent that does not trust the interception CA, and the line says so; anything else is FINE.
     */
    static void logClientFailure(Destination intercepted, Throwable cause) {
        if (intercepted != null && cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() instanceof javax.net.ssl.SSLException) {
            LOG.info(() -> "TLS with the client for " + intercepted.authority() + " failed (" + cause.getCause().getMessage()
                    + "); does the agent trust the interception CA (/ca.pem)?");
        } else {
            LOG.log(java.util.logging.Level.FINE, "client connection failed", cause);
        }
    }
}
