package org.cyverse.mesa.egress.proxy;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.allowlist.Reason;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.Secret;

/**
 * SPEC.md steps 2, 3 and 5 for one request head, without a channel: where it goes (the absolute
 * URI of a forwarded request, or the CONNECT target of an intercepted one, which Host must name
 * too), whether the policy lets it, and what the credentials make of it. The result is the head
 * to send upstream, or the refusal to answer. Records what it learns in the {@link Exchange}.
 */
final class RequestAdmission {

    /** What to do with the request. */
    sealed interface Result permits Admitted, Refused {}

    /** Send {@code outgoing} to {@code destination}, rewriting the body when {@code bodySubstitution} says so. */
    record Admitted(Destination destination, HttpRequest outgoing, Map<String, Secret> bodySubstitution) implements Result {}

    /** Answer {@code refusal}; {@code close} when the rest of the request cannot be skipped safely. */
    record Refused(Refusal refusal, boolean close) implements Result {}

    private final ProxyState state;
    private final ProxyMetrics metrics;
    private final Destination intercepted;

    /** @param intercepted the CONNECT target for requests inside an intercepted tunnel, else {@code null} */
    RequestAdmission(ProxyState state, ProxyMetrics metrics, Destination intercepted) {
        this.state = state;
        this.metrics = metrics;
        this.intercepted = intercepted;
    }

    Result admit(HttpRequest request, Exchange exchange) {
        boolean close = closeAfterRefusal(request);
        return intercepted != null ? interceptedRequest(request, exchange, close) : forwardedRequest(request, exchange, close);
    }

    private Result forwardedRequest(HttpRequest request, Exchange exchange, boolean close) {
        String uri = request.uri();
        if (uri.startsWith("/") || uri.equals("*")) {
            return new Refused(Refusals.badRequest("this is a proxy: the request names no destination (" + abbreviate(uri) + ")",
                    "point HTTP_PROXY/HTTPS_PROXY at this address instead of sending requests to it directly"), close);
        }
        RequestTarget target;
        Destination destination;
        try {
            target = RequestTarget.parseAbsolute(uri);
            exchange.scheme = target.scheme();
            exchange.host = target.host();
            exchange.port = target.port();
            exchange.path = target.path();
            if (target.scheme().equals("https")) {
                return new Refused(Refusals.badRequest("an https:// URL was sent as a plain proxy request",
                        "send HTTPS through CONNECT (set HTTPS_PROXY); the proxy does not originate TLS for plain requests"), close);
            }
            destination = Destination.parse(target.host(), target.port());
        } catch (RequestTarget.BadTargetException | InvalidDestinationException e) {
            return new Refused(Refusals.badRequest("bad request target: " + e.getMessage(),
                    "send an absolute http:// URL with a valid host name or address"), true);
        }
        return decide(request, exchange, destination, target.pathAndQuery(), close);
    }

    /**
     * A request inside an intercepted CONNECT: origin-form (or an absolute https URL naming the
     * CONNECT target), and a Host that names the CONNECT target too (domain fronting refused).
     */
    private Result interceptedRequest(HttpRequest request, Exchange exchange, boolean close) {
        exchange.mode = "intercept";
        exchange.scheme = "https";
        exchange.host = intercepted.host();
        exchange.port = intercepted.port();
        String uri = request.uri();
        String pathAndQuery;
        try {
            if (uri.startsWith("/")) {
                pathAndQuery = uri;
            } else {
                RequestTarget target = RequestTarget.parseAbsolute(uri);
                if (!target.scheme().equals("https") || !namesTarget(target.host(), target.port())) {
                    return new Refused(Refusals.of(Reason.HOST_MISMATCH, intercepted.host(), state.profile(),
                            "request target " + abbreviate(uri)), close);
                }
                pathAndQuery = target.pathAndQuery();
            }
        } catch (RequestTarget.BadTargetException e) {
            return new Refused(Refusals.badRequest("bad request target: " + e.getMessage(), "send an origin-form target such as /path"), true);
        }
        exchange.path = RequestTarget.pathOf(pathAndQuery);
        String host = request.headers().get(HttpHeaderNames.HOST);
        if (host == null || !hostHeaderNamesTarget(host)) {
            return new Refused(Refusals.of(Reason.HOST_MISMATCH, intercepted.host(), state.profile(),
                    host == null ? "no Host header" : "Host " + abbreviate(host)), close);
        }
        return decide(request, exchange, intercepted, pathAndQuery, close);
    }

    /** Steps 3 and 5 for a request whose destination is known. */
    private Result decide(HttpRequest request, Exchange exchange, Destination destination, String pathAndQuery, boolean close) {
        exchange.host = destination.host();
        exchange.port = destination.port();
        exchange.path = RequestTarget.pathOf(pathAndQuery);
        String method = request.method().name();
        Decision decision = state.config().policy().decide(new Target(destination, method, exchange.path));
        exchange.rule = decision.rule();
        if (!decision.allowed()) {
            return new Refused(Refusals.of(decision, destination.host(), destination.port(), state.profile()), close);
        }
        boolean tls = intercepted != null;
        boolean trace = method.equals("TRACE") || method.equals("TRACK");
        if (tls && trace) {
            // TRACE echoes the request, injected credentials included, back to the client.
            return new Refused(Refusals.of(Reason.METHOD_REFUSED, destination.host(), state.profile(), method), close);
        }
        HttpHeaders headers = request.headers().copy();
        HopByHop.strip(headers);
        Injection injection = state.injector().apply(new OutgoingRequest(tls, destination, method, pathAndQuery,
                List.copyOf(headers.entries())));
        if (injection.outcome() != Injection.Outcome.UNCHANGED) {
            metrics.injection(injection.credential() == null ? "" : injection.credential(), injection.outcome().label());
            exchange.credential = injection.credential();
        }
        if (injection.refused()) {
            if (injection.outcome() == Injection.Outcome.SECRET_LEAK) {
                // The leaked value may sit in the path (in any encoding) or the host name: keep it
                // out of the audit log.
                exchange.path = "[redacted]";
                exchange.host = state.injector().scrubHeaderValue(exchange.host);
            }
            return new Refused(CredentialRefusals.of(injection, state.injector().scrubHeaderValue(destination.host()),
                    state.profile()), close);
        }
        if (trace && injection.outcome() == Injection.Outcome.INJECTED) {
            return new Refused(Refusals.of(Reason.METHOD_REFUSED, destination.host(), state.profile(), method), close);
        }
        HttpRequest outgoing = new DefaultHttpRequest(HttpVersion.HTTP_1_1, request.method(), injection.pathAndQuery(),
                DefaultHttpHeadersFactory.headersFactory().newHeaders());
        for (Map.Entry<String, String> header : injection.headers()) {
            outgoing.headers().add(header.getKey(), header.getValue());
        }
        return new Admitted(destination, outgoing, injection.bodySubstitution());
    }

    private boolean hostHeaderNamesTarget(String hostHeader) {
        try {
            RequestTarget authority = RequestTarget.parseAbsolute("https://" + hostHeader + "/");
            return namesTarget(authority.host(), authority.port());
        } catch (RequestTarget.BadTargetException e) {
            return false;
        }
    }

    private boolean namesTarget(String host, int port) {
        try {
            Destination d = Destination.parse(host, port);
            return d.host().equals(intercepted.host()) && d.port() == intercepted.port();
        } catch (InvalidDestinationException e) {
            return false;
        }
    }

    /** After a refusal the connection stays only when nothing of the request is left to read and the client did not ask to close. */
    private static boolean closeAfterRefusal(HttpRequest request) {
        return HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0
                || !HttpUtil.isKeepAlive(request);
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
