package org.cyverse.mesa.egress.proxy;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** The admin port's plain answers (refusals of state-changing calls go through {@link RefusalResponses}). */
final class AdminResponses {

    private AdminResponses() {}

    static FullHttpResponse text(HttpResponseStatus status, String text) {
        return body(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    static FullHttpResponse body(HttpResponseStatus status, String type, byte[] bytes) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        return response;
    }
}
