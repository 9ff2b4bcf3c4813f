package org.cyverse.mesa.egress.proxy;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_GATEWAY;
import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.FORBIDDEN;
import static io.netty.handler.codec.http.HttpResponseStatus.GATEWAY_TIMEOUT;
import static io.netty.handler.codec.http.HttpResponseStatus.MISDIRECTED_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
import static io.netty.handler.codec.http.HttpResponseStatus.REQUEST_TIMEOUT;
import static io.netty.handler.codec.http.HttpResponseStatus.SERVICE_UNAVAILABLE;

import io.netty.handler.codec.http.HttpResponseStatus;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * The one place that maps a failure to its answer: status, reason code and hint, as SPEC.md's
 * table lists them. Every refusal the proxy sends is built here.
 */
public final class Refusals {

    private Refusals() {}

    /** The status SPEC.md gives a reason. */
    public static HttpResponseStatus status(Reason reason) {
        switch (reason) {
            case BAD_REQUEST:
                return BAD_REQUEST;
            case METHOD_REFUSED:
                return HttpResponseStatus.METHOD_NOT_ALLOWED;
            case HOST_MISMATCH:
                return MISDIRECTED_REQUEST;
            case HEADERS_TOO_LARGE:
                return REQUEST_HEADER_FIELDS_TOO_LARGE;
            case HEADER_TIMEOUT:
                return REQUEST_TIMEOUT;
            case DNS_FAILURE:
            case UPSTREAM_UNREACHABLE:
            case UPSTREAM_TLS_ERROR:
                return BAD_GATEWAY;
            case CREDENTIAL_UNAVAILABLE:
            case OVERLOADED:
                return SERVICE_UNAVAILABLE;
            case UPSTREAM_TIMEOUT:
                return GATEWAY_TIMEOUT;
            case ALLOWED:
                throw new IllegalArgumentException("ALLOWED is not a refusal");
            default:
                return FORBIDDEN;
        }
    }

    /** A refusal with the standard error sentence and hint for its reason. */
    public static Refusal of(Reason reason, String host, String profile, String detail) {
        return new Refusal(status(reason), reason, error(reason, host, detail), host, hint(reason, host, profile), null);
    }

    /** A policy refusal (SPEC.md step 3), naming the rule that matched, if any. */
    public static Refusal of(Decision decision, String host, int port, String profile) {
        Reason reason = decision.reason();
        String detail = decision.rule() == null ? null : "rule " + decision.rule();
        String hint = hint(reason, host, profile);
        if (reason == Reason.PORT_NOT_ALLOWED) {
            hint = "port " + port + " is not allowed for " + host + "; add the port to an `allow` entry's ports if the job needs it";
        } else if (decision.rule() != null && decision.rule().startsWith("deny")) {
            hint = host + " is in the config file's deny list (" + decision.rule() + "); remove it there if the job needs it";
        }
        return new Refusal(status(reason), reason, error(reason, host, detail), host, hint, decision.rule());
    }

    /** A bad request, with what was wrong and what would be right. */
    public static Refusal badRequest(String error, String hint) {
        return new Refusal(BAD_REQUEST, Reason.BAD_REQUEST, error, null, hint, null);
    }

    private static String error(Reason reason, String host, String detail) {
        String target = host == null ? "the destination" : host;
        String base;
        switch (reason) {
            case HOST_NOT_ALLOWED: base = target + " is not allowed by this sandbox's egress policy"; break;
            case PORT_NOT_ALLOWED: base = "this port of " + target + " is not allowed"; break;
            case METHOD_NOT_ALLOWED: base = "this method is not allowed for " + target; break;
            case PATH_NOT_ALLOWED: base = "this path is not allowed for " + target; break;
            case ADDRESS_NOT_ALLOWED: base = target + " resolves only to addresses the proxy refuses to reach"; break;
            case HOST_MISMATCH: base = "the TLS server name does not match the CONNECT target " + target; break;
            case HEADERS_TOO_LARGE: base = "the request headers are too large"; break;
            case HEADER_TIMEOUT: base = "the request headers did not arrive in time"; break;
            case DNS_FAILURE: base = target + " could not be resolved"; break;
            case UPSTREAM_UNREACHABLE: base = target + " could not be reached"; break;
            case UPSTREAM_TLS_ERROR: base = "TLS with " + target + " failed"; break;
            case UPSTREAM_TIMEOUT: base = target + " did not answer in time"; break;
            case OVERLOADED: base = "the proxy is at its connection limit"; break;
            case CREDENTIAL_UNAVAILABLE: base = "the credential for " + target + " is unavailable"; break;
            case CREDENTIAL_ENDPOINT_MISMATCH: base = "a credential placeholder was headed to " + target + ", outside its credential's hosts"; break;
            case SECRET_LEAK: base = "the request to " + target + " carried a real secret value"; break;
            case PLAINTEXT_CREDENTIAL: base = "a credential would have gone to " + target + " over plain http"; break;
            case METHOD_REFUSED: base = "TRACE and TRACK are refused for hosts whose traffic the proxy inspects"; break;
            default: base = "the request was refused (" + reason.code() + ")"; break;
        }
        return detail == null ? base : base + " (" + detail + ")";
    }

    private static String hint(Reason reason, String host, String profile) {
        switch (reason) {
            case HOST_NOT_ALLOWED:
                return "profile " + profile + " does not allow " + (host == null ? "this host" : host)
                        + "; if the job needs it, add it to the config file's `allow` list (the app's allowed_egress) or use a profile whose egress class includes it";
            case METHOD_NOT_ALLOWED:
            case PATH_NOT_ALLOWED:
                return "the `allow` entry for this host limits methods and paths; widen it in the config file if the job needs this request";
            case ADDRESS_NOT_ALLOWED:
                return "private, loopback, link-local and cloud metadata addresses are never reachable from the sandbox; "
                        + "an operator may list a CIDR in network.allow_private for a deliberate exception";
            case HOST_MISMATCH:
                return "send the same host name in CONNECT, TLS SNI and Host (domain fronting is refused)";
            case HEADERS_TOO_LARGE:
                return "send smaller headers, or raise limits.max_header_bytes";
            case HEADER_TIMEOUT:
                return "send the whole request head within limits.header_timeout";
            case METHOD_REFUSED:
                return "TRACE would echo injected credentials back to the client; use another method";
            case UPSTREAM_TLS_ERROR:
                return "the upstream's TLS did not verify; if it uses a private CA, add it with tls.upstream_ca";
            case DNS_FAILURE:
                return "check the host name; the proxy resolves names itself, once, with network.dns_timeout";
            case UPSTREAM_UNREACHABLE:
                return "the upstream refused or dropped the connection; check that it is up and listening on that port";
            case UPSTREAM_TIMEOUT:
                return "the upstream did not answer within network.connect_timeout or limits.idle_timeout; retry later";
            case OVERLOADED:
                return "retry shortly; an operator can raise limits.max_connections";
            case BAD_REQUEST:
                return "send a well-formed HTTP/1.1 request through the proxy (HTTP_PROXY / HTTPS_PROXY)";
            default:
                return "see the mesa-egress README for reason " + reason.code();
        }
    }
}
