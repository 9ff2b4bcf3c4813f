package org.cyverse.mesa.egress.proxy.connection;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;

/** Renders a {@link Refusal} as SPEC.md's answer: status, X-Mesa-Egress-Reason, JSON body. */
public final class RefusalResponses {

    static final String REASON_HEADER = "X-Mesa-Egress-Reason";
    private static final ObjectMapper JSON = new ObjectMapper();

    private RefusalResponses() {}

    /**
     * Answers {@code refusal} on the client channel and records it (audit line, counter): the
     * one way a refusal is written.
     *
     * @param close whether the connection ends after the answer ({@code Connection: close})
     */
    public static ChannelFuture answer(ChannelHandlerContext ctx, ProxyContext proxy, Exchange exchange, Refusal refusal, boolean close) {
        exchange.finishRefused(proxy, refusal);
        return ctx.writeAndFlush(render(scrubbed(refusal, proxy.state()), proxy.state().profile(), close));
    }

    /**
     * {@code refusal} with every secret value in its text replaced by its sentinel: whatever made
     * it (a server name, a Host field, a decoder's message quoting the request) may hold one.
     */
    public static Refusal scrubbed(Refusal refusal, ProxyState state) {
        return refusal.mapText(state.injector()::scrub);
    }

    /**
     * The status with the reason code and error as its reason phrase ({@code 403 host_not_allowed:
     * evil.example is not allowed ...}): clients that show no body of a CONNECT answer (urllib,
     * Go, the JDK) print the phrase. Printable ASCII only, at most 200 characters.
     */
    static HttpResponseStatus status(Refusal refusal) {
        String phrase = (refusal.reason().code() + ": " + refusal.error()).replaceAll("[^\\x20-\\x7e]", "?");
        return new HttpResponseStatus(refusal.status(), phrase.length() <= 200 ? phrase : phrase.substring(0, 197) + "...");
    }

    /**
     * SPEC.md's JSON answer, or the refusal's own {@link Refusal.Answer} in the client's protocol
     * (git's plain text, a receive-pack report): either way with the reason header.
     */
    public static FullHttpResponse render(Refusal refusal, String profile, boolean close) {
        Refusal.Answer answer = refusal.answer() != null ? refusal.answer() : json(refusal, profile);
        byte[] bytes = answer.body();
        HttpResponseStatus status = answer.status() == refusal.status() ? status(refusal) : HttpResponseStatus.valueOf(answer.status());
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, answer.contentType())
                .set(HttpHeaderNames.CONTENT_LENGTH, bytes.length)
                .set(REASON_HEADER, refusal.reason().code())
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .set(HttpHeaderNames.CONNECTION, close ? HttpHeaderValues.CLOSE : HttpHeaderValues.KEEP_ALIVE);
        if (refusal.retryAfterSeconds() > 0) {
            response.headers().set(HttpHeaderNames.RETRY_AFTER, refusal.retryAfterSeconds());
        }
        return response;
    }

    private static Refusal.Answer json(Refusal refusal, String profile) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", refusal.error());
        body.put("reason", refusal.reason().code());
        body.put("host", refusal.host());
        body.put("profile", profile);
        body.put("hint", refusal.hint());
        body.putAll(refusal.details());
        try {
            byte[] json = JSON.writeValueAsBytes(body);
            byte[] line = java.util.Arrays.copyOf(json, json.length + 1);
            line[json.length] = '\n';
            return new Refusal.Answer(refusal.status(), HttpHeaderValues.APPLICATION_JSON.toString(), line);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
