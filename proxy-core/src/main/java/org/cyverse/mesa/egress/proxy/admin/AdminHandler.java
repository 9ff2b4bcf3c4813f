package org.cyverse.mesa.egress.proxy.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;

/**
 * The admin port (SPEC.md "Admin port"): reads ({@code /healthz}, {@code /readyz}, {@code /metrics},
 * {@code /ca.pem}) with GET and HEAD, open on loopback; state-changing calls ({@code POST /kill})
 * with POST, each authenticated with the admin token before anything else (an unknown path
 * included, so that the agent, which reaches this port, learns nothing), and audited.
 */
@ChannelHandler.Sharable
public final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final ProxyMetrics metrics;
    private final Supplier<String> notReadyReason;
    private final Supplier<byte[]> caPem;
    private final AdminCalls calls;

    /**
     * @param notReadyReason {@code null} when ready, else why not (for {@code /readyz})
     * @param caPem the interception CA certificate, or {@code null} when there is none
     * @param calls the state-changing calls
     */
    public AdminHandler(ProxyMetrics metrics, Supplier<String> notReadyReason, Supplier<byte[]> caPem, AdminCalls calls) {
        this.metrics = metrics;
        this.notReadyReason = notReadyReason;
        this.caPem = caPem;
        this.calls = calls;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        String path = request.uri();
        int q = path.indexOf('?');
        boolean authenticated = HttpMethod.POST.equals(request.method()) || ApprovalCalls.handles(q < 0 ? path : path.substring(0, q));
        FullHttpResponse response = authenticated ? calls.answer(ctx.channel(), request) : answer(request);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        if (HttpMethod.HEAD.equals(request.method())) {
            response.content().clear();
        }
        var written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private FullHttpResponse answer(FullHttpRequest request) {
        if (!HttpMethod.GET.equals(request.method()) && !HttpMethod.HEAD.equals(request.method())) {
            FullHttpResponse refused = AdminResponses.text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD to read, POST to change\n");
            refused.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD, POST");
            return refused;
        }
        String path = request.uri();
        int q = path.indexOf('?');
        if (q >= 0) {
            path = path.substring(0, q);
        }
        switch (path) {
            case "/healthz":
                return AdminResponses.text(HttpResponseStatus.OK, "ok\n");
            case "/readyz": {
                String reason = notReadyReason.get();
                if (reason == null) {
                    return AdminResponses.text(HttpResponseStatus.OK, "ready\n");
                }
                String json = "{\"ready\": false, \"reason\": \"" + reason.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}\n";
                return AdminResponses.body(HttpResponseStatus.SERVICE_UNAVAILABLE, "application/json", json.getBytes(StandardCharsets.UTF_8));
            }
            case "/metrics":
                return AdminResponses.body(HttpResponseStatus.OK, ProxyMetrics.contentType(), metrics.scrape());
            case "/ca.pem": {
                byte[] pem = caPem.get();
                if (pem == null) {
                    return AdminResponses.text(HttpResponseStatus.NOT_FOUND, "no interception CA is configured\n");
                }
                return AdminResponses.body(HttpResponseStatus.OK, "application/x-pem-file", pem);
            }
            default:
                return AdminResponses.text(HttpResponseStatus.NOT_FOUND, "not found; try /healthz, /readyz, /metrics, /ca.pem\n");
        }
    }
}
