package org.cyverse.mesa.egress.proxy.body;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import org.cyverse.mesa.egress.body.ContentCoding;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.injector.StreamReplacer;
import org.cyverse.mesa.egress.proxy.http.HopByHop;

/**
 * Prepares an upstream's final response head for the client, in place: hop-by-hop fields gone,
 * secrets scrubbed from the headers, the body framed for the client's version, and what the
 * framing means for both connections.
 *
 * @param upstreamReusable whether the upstream connection can carry another request after this response
 * @param closeClient whether the client connection ends after this response
 * @param body what the body goes through to reach the client (decoding, scrubbing), or {@code null} for nothing
 * @param unreadable why a body that must be scrubbed cannot be read (a content coding the proxy
 *     does not decode), or {@code null}: the response is then refused
 * @param declaredLength the upstream's {@code Content-Length} of a body that is scrubbed (and so
 *     sent chunked), or -1: {@link ResponseLengthHold} may restore a length from it
 */
public record ResponseFraming(boolean upstreamReusable, boolean closeClient, ResponseBody body, String unreadable, long declaredLength) {

    /**
     * @param request the client's request head (its version and method)
     * @param echo the scrubbing taken when the request left (its own written forms are in it)
     * @param closeClient whether the client connection ends anyway (it asked to, or the proxy drains)
     * @param credentialHost whether a credential covers the destination: there an echoed secret is
     *     looked for in any body, decoded first when it has a content coding
     */
    public static ResponseFraming prepare(HttpResponse response, HttpRequest request, EchoScrubber echo, boolean closeClient,
            boolean credentialHost) {
        int status = response.status().code();
        boolean bodyless = HttpMethod.HEAD.equals(request.method()) || status == 204 || status == 304;
        String transfer = otherTransferCoding(response.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING));
        if (transfer != null) {
            // Netty decodes the final chunked framing only: what a coding before it left would reach the client
            // as body bytes without a Content-Encoding, unread by the scrubbing (RFC 9112 section 7).
            return new ResponseFraming(false, true, null, "the upstream framed its answer with Transfer-Encoding: " + transfer
                    + ", a transfer-coding the proxy does not decode (only chunked): its body cannot be read for secrets", -1);
        }
        boolean chunked = HttpUtil.isTransferEncodingChunked(response);
        boolean upstreamReusable = HttpUtil.isKeepAlive(response);
        if (!bodyless && !chunked && !HttpUtil.isContentLengthSet(response)) {
            // The body ends when the upstream closes: the upstream cannot be reused after it.
            upstreamReusable = false;
            closeClient = true;
        }
        HopByHop.strip(response.headers());
        ResponseScrubbing.scrubHeaders(response.headers(), echo);
        ResponseBody body = null;
        long declaredLength = -1;
        if (!bodyless && !echo.isEmpty() && (credentialHost || ResponseScrubbing.scrubbableBody(response.headers()))) {
            StreamReplacer scrubber = echo.newReplacer();
            String coding = ContentCoding.of(response.headers());
            ContentCoding.Decoding decoding = null;
            if (!ContentCoding.identity(coding)) {
                try {
                    decoding = ContentCoding.decoding(coding);
                } catch (ContentCoding.UnsupportedCodingException e) {
                    return new ResponseFraming(false, true, null, "the upstream answered in " + e.getMessage()
                            + ", which the proxy cannot decode to keep secrets out of it", -1);
                }
                response.headers().remove(HttpHeaderNames.CONTENT_ENCODING);
            }
            // A secret echoed in the body is replaced by its sentinel: the length may change.
            body = new ResponseBody(scrubber, decoding, ResponseBody.framed(response.headers()));
            declaredLength = chunked ? -1 : HttpUtil.getContentLength(response, -1L);
            response.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
            response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            chunked = true;
        }
        boolean http10Client = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
        if (http10Client && chunked) {
            // HTTP/1.0 has no chunked coding: send the body raw and end it by closing.
            response.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
            closeClient = true;
        }
        response.setProtocolVersion(HttpVersion.HTTP_1_1);
        if (closeClient) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10Client) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        return new ResponseFraming(upstreamReusable, closeClient, body, null, declaredLength);
    }

    /** The whole {@code Transfer-Encoding} when it names any coding but a single {@code chunked}; else {@code null}. */
    static String otherTransferCoding(List<String> fields) {
        if (fields.isEmpty()) {
            return null;
        }
        String all = String.join(", ", fields);
        for (String coding : all.split(",")) {
            if (!coding.strip().equalsIgnoreCase("chunked")) {
                return all;
            }
        }
        return all.split(",").length == 1 ? null : all; // "chunked, chunked" is no better
    }
}
