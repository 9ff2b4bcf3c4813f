package org.cyverse.mesa.egress.proxy.agent;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.admission.RequestFacts;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.proxy.body.RequestBodyGate;
import org.cyverse.mesa.egress.proxy.http.HopByHop;
import org.cyverse.mesa.egress.proxy.websocket.WebSocketUpgrade;

/** A client's request head as the admission reads it, and the head that goes upstream once it was let through. */
final class RequestHeads {

    private RequestHeads() {}

    /**
     * The facts of {@code request} without its hop-by-hop fields: a plain proxy request, or one
     * inside the intercepted tunnel to {@code intercepted} (when not {@code null}).
     */
    static RequestFacts facts(HttpRequest request, Destination intercepted) {
        HttpHeaders headers = request.headers().copy();
        HopByHop.strip(headers);
        List<Map.Entry<String, String>> entries = headers.entries();
        String method = request.method().name();
        return intercepted == null ? RequestFacts.proxyRequest(method, request.uri(), entries)
                : RequestFacts.insideTunnel(intercepted, method, request.uri(), entries);
    }

    /** The HTTP/1.1 head to send upstream: origin-form, the headers the admission gave (credentials applied). */
    static HttpRequest outgoing(HttpRequest request, Verdict.Outgoing out) {
        HttpRequest outgoing = new DefaultHttpRequest(HttpVersion.HTTP_1_1, request.method(), out.pathAndQuery(),
                DefaultHttpHeadersFactory.headersFactory().newHeaders());
        for (Map.Entry<String, String> header : out.headers()) {
            outgoing.headers().add(header.getKey(), header.getValue());
        }
        return WebSocketUpgrade.requested(request) ? WebSocketUpgrade.outgoing(outgoing) : outgoing;
    }

    /**
     * After a refusal the connection stays only when nothing of the request is left to read and the
     * client did not ask to close, nor to upgrade (the decoder stops after an upgrade request: what
     * follows it may be a WebSocket's frames).
     */
    static boolean closeAfterRefusal(HttpRequest request) {
        return RequestBodyGate.hasBody(request) || !HttpUtil.isKeepAlive(request) || WebSocketUpgrade.requested(request);
    }
}
