package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.proxy.body.RequestBodyGate;
import org.cyverse.mesa.egress.proxy.body.ResponseScrubbing;
import org.cyverse.mesa.egress.proxy.http.RejectedHead;

/**
 * The HTTP side of a WebSocket (RFC 6455 section 4): which requests ask to upgrade, what of the
 * opening handshake goes upstream, and whether the upstream's {@code 101} really accepted it.
 * {@code Upgrade} is hop-by-hop and stripped from every other request, so an upgrade to a protocol
 * the proxy does not relay reaches the upstream as a plain HTTP/1.1 request (RFC 9110 section
 * 7.8 lets a server ignore it); {@code h2c} is refused outright (SPEC.md "Protocols").
 *
 * <p>Extensions are declined: {@code Sec-WebSocket-Extensions} is not sent upstream, so no
 * {@code permessage-deflate} is negotiated, every message arrives as written and is scanned as
 * such, and an upstream that names an extension anyway has broken the handshake.
 */
public final class WebSocketUpgrade {

    /** RFC 6455 section 1.3: appended to the key before hashing. */
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private WebSocketUpgrade() {}

    /** Whether {@code request} asks for a WebSocket: {@code Upgrade} names {@code websocket} and {@code Connection} names {@code upgrade}. */
    public static boolean requested(HttpRequest request) {
        return hasToken(request.headers(), HttpHeaderNames.UPGRADE, "websocket") && hasToken(request.headers(), HttpHeaderNames.CONNECTION, "upgrade");
    }

    /**
     * What {@link org.cyverse.mesa.egress.proxy.agent.StrictRequestDecoder} answers for a request whose upgrade the proxy will not
     * carry ({@code h2c}, or a WebSocket handshake section 4.1 does not allow), or {@code null}.
     */
    public static RejectedHead rejection(HttpRequest request) {
        String method = request.method().name();
        if (hasToken(request.headers(), HttpHeaderNames.UPGRADE, "h2c")) {
            return new RejectedHead(Reason.BAD_REQUEST, Refusals.Problem.H2C_UPGRADE, null, method);
        }
        String problem = handshakeProblem(request);
        return problem == null ? null : new RejectedHead(Reason.BAD_REQUEST, Refusals.Problem.BAD_WEBSOCKET_UPGRADE, problem, method);
    }

    /** What is wrong with a WebSocket opening handshake, or {@code null} (also when {@code request} is none). */
    private static String handshakeProblem(HttpRequest request) {
        if (!requested(request)) {
            return null;
        }
        if (!HttpMethod.GET.equals(request.method())) {
            return "the method is " + request.method() + ", not GET";
        } else if (!HttpVersion.HTTP_1_1.equals(request.protocolVersion())) {
            return "the request is " + request.protocolVersion() + ", not HTTP/1.1";
        } else if (!"13".equals(request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_VERSION))) {
            return "Sec-WebSocket-Version is not 13";
        } else if (!validKey(request.headers().getAll(HttpHeaderNames.SEC_WEBSOCKET_KEY))) {
            return "Sec-WebSocket-Key is not one base64 value of 16 bytes";
        } else if (RequestBodyGate.hasBody(request)) {
            return "the handshake has a body";
        }
        return null;
    }

    private static boolean validKey(java.util.List<String> keys) {
        if (keys.size() != 1) {
            return false;
        }
        try {
            return Base64.getDecoder().decode(keys.get(0).trim()).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The opening handshake as it goes upstream: {@code outgoing} (hop-by-hop fields already gone) asks to upgrade again, without extensions. */
    public static HttpRequest outgoing(HttpRequest outgoing) {
        outgoing.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        outgoing.headers().set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
        outgoing.headers().remove(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
        return outgoing;
    }

    /**
     * Why the upstream's {@code 101} does not complete a WebSocket handshake the client started
     * (section 4.1, the client's checks), or {@code null} when it does. A switch the client did
     * not ask for is never relayed.
     */
    public static String notAccepted(HttpRequest request, HttpResponse response) {
        if (!requested(request) || handshakeProblem(request) != null) {
            return "the upstream switched protocols";
        }
        HttpHeaders h = response.headers();
        if (!hasToken(h, HttpHeaderNames.UPGRADE, "websocket") || !hasToken(h, HttpHeaderNames.CONNECTION, "upgrade")) {
            return "the upstream switched protocols without Upgrade: websocket and Connection: Upgrade";
        }
        String expected = accept(request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_KEY).trim());
        if (!expected.equals(h.get(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT))) {
            return "the upstream's Sec-WebSocket-Accept does not answer the client's key";
        }
        if (h.contains(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS)) {
            return "the upstream named a WebSocket extension that was not offered";
        }
        return null;
    }

    /** The {@code 101} for the client: the upstream's fields, hop-by-hop ones replaced by the upgrade's own, echoes scrubbed. */
    public static FullHttpResponse toClient(HttpResponse accepted, EchoScrubber echo) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
        response.headers().set(accepted.headers());
        ResponseScrubbing.interim(response.headers(), echo);
        response.headers().remove(HttpHeaderNames.CONTENT_LENGTH).remove(HttpHeaderNames.TRANSFER_ENCODING);
        response.headers().set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        return response;
    }

    /** Section 4.2.2: base64 of the SHA-1 of the key and the GUID. */
    static String accept(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every Java platform", e);
        }
    }

    private static boolean hasToken(HttpHeaders headers, CharSequence name, String token) {
        for (String value : headers.getAll(name)) {
            for (String t : value.split(",")) {
                if (t.trim().toLowerCase(Locale.ROOT).equals(token)) {
                    return true;
                }
            }
        }
        return false;
    }
}
