package org.cyverse.mesa.egress.proxy.agent;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.Set;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.connection.RefusalResponses;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;
import org.cyverse.mesa.egress.proxy.http.RejectedHead;
import org.cyverse.mesa.egress.proxy.tunnel.SniCheck;

/**
 * Readable HTTPS refusals ({@code tls.explain_refusals}, on by default where the proxy has a CA):
 * curl, urllib, requests, Go and the JDK show no body of a refused CONNECT, so an agent could not
 * tell a policy refusal from a broken network. Instead the refused CONNECT is answered 200, the
 * client's TLS is terminated with a leaf from the interception CA (which the agent trusts
 * already; the server name must be the CONNECT target, as for any tunnel), and its first request
 * inside gets the refusal: the same status, {@code X-Mesa-Egress-Reason}, JSON body and hint, then
 * the connection closes. Every check ran before, nothing is dialled, and the refusal is audited
 * once, as the CONNECT's.
 */
final class RefusalTunnel {

    /** Refusals of a CONNECT whose target was read, which the client may be told inside TLS. */
    private static final Set<Reason> EXPLAINED = Set.of(Reason.HOST_NOT_ALLOWED, Reason.PORT_NOT_ALLOWED, Reason.METHOD_NOT_ALLOWED,
            Reason.PATH_NOT_ALLOWED, Reason.ADDRESS_NOT_ALLOWED, Reason.APPROVAL_REQUIRED, Reason.EGRESS_KILLED, Reason.DNS_FAILURE);

    private RefusalTunnel() {}

    /**
     * Answers the refused CONNECT of {@code verdict} inside TLS when that applies.
     *
     * @return whether it did (the exchange is then recorded, and this connection's HTTP handlers are replaced)
     */
    static boolean opened(ProxyContext proxy, ChannelHandlerContext ctx, Exchange exchange, Verdict verdict) {
        Refusal refusal = verdict.refusal();
        Destination destination = verdict.destination();
        if (proxy.leaves == null || proxy.draining || !proxy.state().config().tls().explainRefusals() || destination == null
                || verdict.unreadable() || !EXPLAINED.contains(refusal.reason())) {
            return false;
        }
        exchange.finishRefused(proxy, refusal);
        String profile = proxy.state().profile();
        long helloMillis = proxy.state().config().limits().headerTimeout().toMillis();
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, TunnelSetup.ESTABLISHED)).addListener(f -> {
            if (!f.isSuccess()) {
                ctx.close();
                return;
            }
            AgentPipelines.toInterception(ctx.pipeline(), new SniCheck(destination, helloMillis, false, new SniCheck.Outcome() {
                @Override
                public Future<SslContext> context(ChannelHandlerContext sni) {
                    return proxy.leaves.serverContext(sni.executor(), destination, false); // HTTP/1.1: the text rides in the status line
                }

                @Override
                public void proceed(ChannelHandlerContext sni, SslContext context) {
                    Refusal told = RefusalResponses.scrubbed(refusal, proxy.state());
                    var p = sni.pipeline();
                    AgentPipelines.interceptedTls(p, context.newHandler(sni.alloc()), new ProtocolSwitch(destination,
                            http2 -> AgentPipelines.interceptedHttp(p, proxy, new Answer(told, profile)))); // ALPN offered http/1.1 alone
                }

                @Override
                public void refuse(Refusal notTls) {
                    ctx.close(); // not TLS, or another server name: nothing to tell it in
                }
            }));
            ctx.channel().read();
        });
        return true;
    }

    /** Inside the terminated TLS: the first request head gets the refusal; the connection then closes. */
    private static final class Answer extends ChannelInboundHandlerAdapter {
        private final Refusal refusal;
        private final String profile;
        private boolean answered;

        Answer(Refusal refusal, String profile) {
            this.refusal = refusal;
            this.profile = profile;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            ctx.read();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            boolean head = msg instanceof HttpRequest || msg instanceof RejectedHead;
            ReferenceCountUtil.release(msg);
            if (!head || answered) {
                ctx.read();
                return;
            }
            answered = true;
            ctx.writeAndFlush(RefusalResponses.render(refusal, profile, true)).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // the client's TLS failed (it does not trust the CA, or gave up)
        }
    }
}
