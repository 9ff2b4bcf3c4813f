package org.cyverse.mesa.egress.proxy.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.cyverse.mesa.egress.proxy.connection.RefusalResponses;

/** The admin port's plain answers (refusals of state-changing calls go through {@link RefusalResponses}). */
final class AdminResponses {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AdminResponses() {}

    /** {@code body} as one line of JSON. */
    static FullHttpResponse json(HttpResponseStatus status, Map<String, Object> body) {
        try {
            byte[] bytes = JSON.writeValueAsBytes(body);
            byte[] line = new byte[bytes.length + 1];
            System.arraycopy(bytes, 0, line, 0, bytes.length);
            line[bytes.length] = '\n';
            return body(status, "application/json", line);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static FullHttpResponse text(HttpResponseStatus status, String text) {
        return body(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    static FullHttpResponse body(HttpResponseStatus status, String type, byte[] bytes) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        return response;
    }
}
