package org.cyverse.mesa.egress.admission;

import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.approval.Approval;
import org.cyverse.mesa.egress.injector.budget.BudgetRefusal;

/**
 * The one place that maps a failure to its answer: status, error sentence and hint, as SPEC.md's
 * table lists them. Callers pass a {@link Reason} (or a {@link Problem}, for the shapes of a bad
 * request) and the facts they know; they never write a status or a message of their own.
 */
public final class Refusals {

    /** The shapes of a bad request (400 {@code bad_request}), each with its own error and hint. */
    public enum Problem {
        /** An origin-form request sent to the proxy as if it were the server. */
        NO_DESTINATION("this is a proxy: the request names no destination",
                "point HTTP_PROXY/HTTPS_PROXY at this address instead of sending requests to it directly"),
        /** {@code GET https://...} to the proxy: it does not originate TLS for plain requests. */
        HTTPS_AS_PLAIN("an https:// URL was sent as a plain proxy request",
                "send HTTPS through CONNECT (set HTTPS_PROXY); the proxy does not originate TLS for plain requests"),
        /** An absolute-form target that does not parse. */
        BAD_TARGET("bad request target", "send an absolute http:// URL with a valid host name or address"),
        /** A target inside an intercepted tunnel that does not parse. */
        BAD_ORIGIN_TARGET("bad request target", "send an origin-form target such as /path"),
        /** A CONNECT target that is not host:port. */
        BAD_CONNECT_TARGET("bad CONNECT target", "CONNECT takes host:port, e.g. CONNECT github.com:443"),
        /** A head the byte-level scan refused: bare LF, obs-fold, control bytes. */
        MALFORMED_HEAD("malformed request",
                "send a well-formed HTTP/1.1 request (CRLF line ends, no folded or control characters)"),
        /** A request body the decoder could not frame: a bad chunk size or chunk, a body cut short. */
        MALFORMED_BODY("malformed request body", "send the body with a valid Content-Length or well-formed chunks"),
        /** A chunked request's trailer section that does not parse, or carries a field kept out of trailers (RFC 9110 section 6.5.1). */
        MALFORMED_TRAILERS("malformed or forbidden request trailer", "send trailer fields as name: value lines, and only fields"
                + " whose definition allows a trailer: never Host, framing, authentication, request-modifier or hop-by-hop fields"),
        /** A body in a content coding the proxy cannot decode (to a credential's host), malformed, or inflating without end. */
        UNSCANNABLE_BODY("request body the proxy cannot scan for secrets",
                "send the body uncompressed or in gzip, deflate, br or zstd; the proxy reads every body it forwards"),
        /** Framing that two parsers could read differently (RFC 9112 section 6.1, 11.2). */
        AMBIGUOUS_FRAMING("ambiguous request framing", "send one unambiguous Content-Length or Transfer-Encoding: chunked, not both"),
        /** An opaque tunnel whose first bytes are not a TLS ClientHello (answered by closing). */
        NOT_TLS("the tunnel carries no TLS ClientHello", "send TLS through CONNECT; the proxy does not relay protocols it cannot judge"),
        /** A Host field that is more than host[:port] (RFC 9110 section 7.2): a path, query, fragment or user part. */
        BAD_HOST_HEADER("bad Host header", "send Host as host or host:port, nothing more"),
        /** {@code Upgrade: h2c} (RFC 7540 section 3.2): cleartext HTTP/2 is not relayed, whatever the upstream would say. */
        H2C_UPGRADE("Upgrade: h2c is refused: the proxy does not relay cleartext HTTP/2",
                "send the request without Upgrade: h2c (HTTP/1.1), or use https:// through CONNECT, where HTTP/2 is negotiated with ALPN"),
        /** A WebSocket opening handshake that RFC 6455 section 4.1 does not allow. */
        BAD_WEBSOCKET_UPGRADE("malformed WebSocket opening handshake", "send GET over HTTP/1.1 with Upgrade: websocket, Connection: Upgrade,"
                + " Sec-WebSocket-Version: 13, a Sec-WebSocket-Key of 16 random bytes in base64, and no body"),
        /** A WebSocket frame or message RFC 6455 does not allow, or over {@code limits.websocket_max_message_bytes} (the connection is closed with a close frame). */
        BAD_WEBSOCKET_FRAME("WebSocket protocol error", "send masked frames of at most limits.websocket_max_message_bytes per message,"
                + " text as UTF-8, control frames unfragmented and short"),
        /** A ClientHello that does not parse (answered by closing). */
        MALFORMED_CLIENT_HELLO("malformed TLS ClientHello", "send a well-formed TLS ClientHello");

        private final String error;
        private final String hint;

        Problem(String error, String hint) {
            this.error = error;
            this.hint = hint;
        }
    }

    /** The rule a budget refusal names, before the limit's key: {@code limits.concurrent}. */
    public static final String LIMIT_RULE_PREFIX = "limits.";

    private Refusals() {}

    /** The status SPEC.md gives a reason. */
    public static int status(Reason reason) {
        return switch (reason) {
            case BAD_REQUEST -> 400;
            case ADMIN_UNAUTHORIZED -> 401;
            case METHOD_REFUSED -> 405;
            case HEADER_TIMEOUT -> 408;
            case HOST_MISMATCH -> 421;
            case HEADERS_TOO_LARGE -> 431;
            case DNS_FAILURE, UPSTREAM_UNREACHABLE, UPSTREAM_TLS_ERROR -> 502;
            case CREDENTIAL_UNAVAILABLE, OVERLOADED -> 503;
            case UPSTREAM_TIMEOUT -> 504;
            case CREDENTIAL_BUDGET_EXCEEDED -> 429;
            case APPROVAL_REQUIRED -> 403;
            case HOST_NOT_ALLOWED, PORT_NOT_ALLOWED, METHOD_NOT_ALLOWED, PATH_NOT_ALLOWED, ADDRESS_NOT_ALLOWED,
                    CREDENTIAL_ENDPOINT_MISMATCH, SECRET_LEAK, PLAINTEXT_CREDENTIAL, EGRESS_KILLED, SIGV4_UNSUPPORTED,
                    SIGV4_SIGNATURE_MISMATCH, REPOSITORY_NOT_ALLOWED, REF_NOT_ALLOWED, GRAPHQL_NOT_ALLOWED -> 403;
            case ALLOWED -> throw new IllegalArgumentException("ALLOWED is not a refusal");
        };
    }

    /**
     * An HTTP/2 connection the proxy ended with a GOAWAY for {@code error} (RFC 9113 section 7):
     * for the audit record, whose rule names the error; the GOAWAY is the answer.
     */
    public static Refusal http2(String error, String detail, String host) {
        return new Refusal(400, Reason.BAD_REQUEST, "HTTP/2 connection error " + error + ": " + detail, host,
                "speak HTTP/2 as RFC 9113 says, within the SETTINGS the proxy announced", "http2: " + error, 0, Map.of());
    }

    /** A refusal with the standard error sentence and hint for its reason. */
    public static Refusal of(Reason reason, String host, String profile, String detail) {
        return new Refusal(status(reason), reason, error(reason, host, detail), host, hint(reason, host, profile), null, 0, Map.of());
    }

    /** {@code 502 upstream_tls_error} with the hint for what failed ({@link UpstreamTlsFailure}): the certificate, ALPN, the TLS version, ... */
    public static Refusal upstreamTls(Throwable cause, String host, String profile) {
        UpstreamTlsFailure failure = UpstreamTlsFailure.of(cause);
        String name = host == null ? "the host" : host;
        String hint = switch (failure.kind()) {
            case CERTIFICATE -> hint(Reason.UPSTREAM_TLS_ERROR, host, profile);
            case APPLICATION_PROTOCOL -> name + " refused every application protocol the proxy offered: it speaks HTTP/2 only"
                    + " (a gRPC server, say), which the proxy relays when tls.http2 is true; with tls.intercept: auto a host"
                    + " that needs no interception (no credential, method or path rule) is tunnelled untouched";
            case NO_COMMON_VERSION -> name + " and the proxy share no TLS version or cipher suite (the proxy speaks TLS 1.2 and 1.3);"
                    + " an upstream that needs an older TLS cannot be reached through it";
            case CLIENT_CERTIFICATE -> name + " asks for a client certificate, which the proxy does not present";
            case NOT_TLS -> "the upstream did not answer in TLS: check that " + name + " serves HTTPS on that port (plain http"
                    + " goes through the proxy as http://, not https://)";
            case OTHER -> "the TLS handshake with " + name + " failed; check that it serves HTTPS on that port";
        };
        return new Refusal(status(Reason.UPSTREAM_TLS_ERROR), Reason.UPSTREAM_TLS_ERROR, error(Reason.UPSTREAM_TLS_ERROR, host,
                failure.detail()), host, hint, null, 0, Map.of());
    }

    /** A bad request of shape {@code problem}; {@code detail} says what exactly was wrong (never a secret). */
    public static Refusal badRequest(Problem problem, String detail) {
        String error = detail == null ? problem.error : problem.error + ": " + detail;
        return new Refusal(400, Reason.BAD_REQUEST, error, null, problem.hint, null, 0, Map.of());
    }

    /** A policy refusal (SPEC.md step 3), naming the rule that matched, if any. */
    public static Refusal policy(Decision decision, String host, int port, String profile) {
        Reason reason = Reason.of(decision.reason());
        String hint;
        if (reason == Reason.PORT_NOT_ALLOWED) {
            hint = "port " + port + " is not allowed for " + host + "; add the port to an `allow` entry's ports if the job needs it";
        } else if (decision.rule() != null && decision.rule().startsWith("deny")) {
            hint = host + " is in the config file's deny list (" + decision.rule() + "); remove it there if the job needs it";
        } else {
            hint = hint(reason, host, profile);
        }
        return new Refusal(status(reason), reason, error(reason, host, ruleDetail(decision)), host, hint, decision.rule(), 0, Map.of());
    }

    /** A CONNECT whose rules restrict methods or paths while the proxy does not intercept (tls.intercept none). */
    public static Refusal needsInterception(Decision decision, String host) {
        Reason reason = Reason.of(decision.reason());
        return new Refusal(status(reason), reason, error(reason, host, ruleDetail(decision)), host, "the rules for " + host
                + " restrict methods or paths, which on HTTPS needs TLS interception (tls.intercept is none)", decision.rule(), 0, Map.of());
    }

    /**
     * A request that would carry {@code credential} past one of its {@code limits}: 429 with
     * {@code Retry-After}, naming the limit; the request is not sent, with or without the credential.
     */
    public static Refusal budget(BudgetRefusal over, String host, String profile) {
        long seconds = over.retryAfter().toSeconds();
        String error = "the request to " + (host == null ? "the destination" : host) + " would pass credential " + over.credential()
                + "'s limit (" + over.describe() + ")";
        String hint = "wait " + seconds + " s (Retry-After) and retry; the proxy limits credential " + over.credential() + " to "
                + over.describe() + " under profile " + profile + "; an operator can raise credentials[].limits." + over.kind().key();
        return new Refusal(status(Reason.CREDENTIAL_BUDGET_EXCEEDED), Reason.CREDENTIAL_BUDGET_EXCEEDED, error, host, hint,
                LIMIT_RULE_PREFIX + over.kind().key(), seconds, Map.of());
    }

    /**
     * A host the allow-list does not name, for which an approval was asked (A1): 403
     * {@code approval_required} with the approval's id, the scope it would grant and when the
     * request expires, in the body too.
     */
    public static Refusal approvalRequired(Approval approval, String host, String profile) {
        Map<String, Object> details = new java.util.LinkedHashMap<>();
        details.put("approval_id", approval.id());
        details.put("scope", Map.of("host", approval.asked().host(), "ports", List.copyOf(approval.asked().ports())));
        details.put("expires", approval.expires().toString());
        String error = host + " is not on this sandbox's allow-list; approval " + approval.id() + " was requested";
        String hint = "ask the job's owner to approve " + approval.id() + " (" + approval.asked().describe() + ") in the approval inbox, then"
                + " retry; undecided, the request expires at " + approval.expires() + " (profile " + profile + ")";
        return new Refusal(status(Reason.APPROVAL_REQUIRED), Reason.APPROVAL_REQUIRED, error, host, hint, "approval " + approval.id(), 0,
                details);
    }

    /** A host whose approval was denied lately: {@code host_not_allowed}, saying so. */
    public static Refusal approvalDenied(Approval approval, String host, String profile) {
        String hint = "approval " + approval.id() + " for " + host + " was denied at " + approval.decidedAt() + "; another request may be"
                + " made after " + approval.expires() + " (profile " + profile + ")";
        return new Refusal(status(Reason.HOST_NOT_ALLOWED), Reason.HOST_NOT_ALLOWED, error(Reason.HOST_NOT_ALLOWED, host, null), host, hint,
                "approval " + approval.id() + " denied", 0, Map.of("approval_id", approval.id()));
    }

    /** A host that could be approved, with the inbox full ({@code approvals.max_pending}): {@code host_not_allowed}, saying so. */
    public static Refusal approvalInboxFull(String host, String profile) {
        String hint = "the approval inbox already holds approvals.max_pending undecided requests, so none was made for " + host
                + "; ask the job's owner to decide the pending ones, then retry (profile " + profile + ")";
        return new Refusal(status(Reason.HOST_NOT_ALLOWED), Reason.HOST_NOT_ALLOWED, error(Reason.HOST_NOT_ALLOWED, host, null), host, hint,
                null, 0, Map.of());
    }

    /**
     * A {@code dlp} rule matched in {@code place} (block mode): 403 {@code secret_leak}, naming the
     * rule, never the value.
     */
    public static Refusal dlp(String rule, String place, String host, String profile) {
        String target = host == null ? "the destination" : host;
        return new Refusal(status(Reason.SECRET_LEAK), Reason.SECRET_LEAK, "the request to " + target + " carried what looks like a secret"
                + " (dlp rule " + rule + ", in the " + place + ")", host, "the agent should not send secrets it holds; if this is no"
                + " secret, an operator can set dlp.mode: audit or leave rule " + rule + " out of dlp.patterns", "dlp:" + rule, 0, Map.of());
    }

    private static String ruleDetail(Decision decision) {
        return decision.rule() == null ? null : "rule " + decision.rule();
    }

    static String error(Reason reason, String host, String detail) {
        String target = host == null ? "the destination" : host;
        String base = switch (reason) {
            case HOST_NOT_ALLOWED -> target + " is not allowed by this sandbox's egress policy";
            case PORT_NOT_ALLOWED -> "this port of " + target + " is not allowed";
            case METHOD_NOT_ALLOWED -> "this method is not allowed for " + target;
            case PATH_NOT_ALLOWED -> "this path is not allowed for " + target;
            case ADDRESS_NOT_ALLOWED -> target + " resolves only to addresses the proxy refuses to reach";
            case HOST_MISMATCH -> "the request does not name the CONNECT target " + target; // the detail says which name differed
            case HEADERS_TOO_LARGE -> "the request headers are too large";
            case HEADER_TIMEOUT -> "the request headers did not arrive in time";
            case DNS_FAILURE -> target + " could not be resolved";
            case UPSTREAM_UNREACHABLE -> target + " could not be reached";
            case UPSTREAM_TLS_ERROR -> "TLS with " + target + " failed";
            case UPSTREAM_TIMEOUT -> target + " did not answer in time";
            case OVERLOADED -> "the proxy is at its connection limit";
            case CREDENTIAL_UNAVAILABLE -> "the credential for " + target + " is unavailable";
            case CREDENTIAL_ENDPOINT_MISMATCH -> "a credential placeholder was headed to " + target + ", outside its credential's hosts";
            case SECRET_LEAK -> "the request to " + target + " carried a real secret value";
            case PLAINTEXT_CREDENTIAL -> "a credential would have gone to " + target + " over plain http";
            case METHOD_REFUSED -> "TRACE and TRACK are refused for hosts whose traffic the proxy inspects, and CONNECT inside"
                    + " an intercepted connection";
            case BAD_REQUEST -> "the request is malformed or ambiguous";
            case ADMIN_UNAUTHORIZED -> "this admin call needs the admin token (it changes the proxy's state, or reads the approval inbox)";
            case CREDENTIAL_BUDGET_EXCEEDED -> "a request to " + target + " would pass a credential's limit";
            case APPROVAL_REQUIRED -> target + " is not on this sandbox's allow-list; it may be approved";
            case EGRESS_KILLED -> "an operator pulled this sandbox's kill switch: nothing leaves, " + target + " included";
            case SIGV4_UNSUPPORTED -> "the request to " + target + " is signed in a way the proxy cannot re-sign";
            case SIGV4_SIGNATURE_MISMATCH -> "the request to " + target + " is not signed with its credential's sentinel key";
            case REPOSITORY_NOT_ALLOWED -> "the request to " + target + " is outside the job's GitHub repositories";
            case REF_NOT_ALLOWED -> "the request to " + target + " would change a ref other than the job's branch";
            case GRAPHQL_NOT_ALLOWED -> "the GraphQL request to " + target + " has a mutation the job's branch rule does not allow";
            case ALLOWED -> throw new IllegalArgumentException("ALLOWED is not a refusal");
        };
        return detail == null ? base : base + " (" + detail + ")";
    }

    private static String hint(Reason reason, String host, String profile) {
        return switch (reason) {
            case HOST_NOT_ALLOWED -> "profile " + profile + " does not allow " + (host == null ? "this host" : host)
                    + "; if the job needs it, add it to the config file's `allow` list (the app's allowed_egress) or use a profile"
                    + " whose egress class includes it";
            case PORT_NOT_ALLOWED -> "add the port to an `allow` entry's ports if the job needs it";
            case METHOD_NOT_ALLOWED, PATH_NOT_ALLOWED ->
                    "the `allow` entry for this host limits methods and paths; widen it in the config file if the job needs this request";
            case ADDRESS_NOT_ALLOWED -> "private, loopback, link-local and cloud metadata addresses are never reachable from the sandbox; "
                    + "an operator may list a CIDR in network.allow_private for a deliberate exception";
            case HOST_MISMATCH -> "send the same host name in CONNECT, TLS SNI and Host (domain fronting is refused)";
            case HEADERS_TOO_LARGE -> "send smaller headers, or raise limits.max_header_bytes";
            case HEADER_TIMEOUT -> "send the whole request head within limits.header_timeout";
            case METHOD_REFUSED -> "TRACE would echo injected credentials back to the client, and a CONNECT inside an intercepted"
                    + " connection would open a tunnel the proxy cannot inspect; use another method, or CONNECT to the proxy itself";
            case UPSTREAM_TLS_ERROR -> "the upstream's certificate did not verify for " + (host == null ? "the host" : host)
                    + " (chain or name); if it is signed by a private CA, add that CA with tls.upstream_ca";
            case DNS_FAILURE -> "check the host name; the proxy resolves names itself, once, with network.dns_timeout";
            case UPSTREAM_UNREACHABLE -> "the upstream refused or dropped the connection; check that it is up and listening on that port";
            case UPSTREAM_TIMEOUT -> "the upstream did not connect within network.connect_timeout, begin its answer within"
                    + " limits.upstream_first_byte_timeout, or went quiet for limits.idle_timeout; retry later";
            case OVERLOADED -> "retry shortly; an operator can raise limits.max_connections";
            case BAD_REQUEST -> "send a well-formed HTTP/1.1 request through the proxy (HTTP_PROXY / HTTPS_PROXY)";
            case ADMIN_UNAUTHORIZED -> "send Authorization: Bearer <the token in admin.token_file>; without admin.token_file configured,"
                    + " state-changing admin calls are refused";
            case CREDENTIAL_BUDGET_EXCEEDED -> "wait for the time in Retry-After and retry; an operator can raise the credential's limits";
            case APPROVAL_REQUIRED -> "ask the job's owner to approve the request in the approval inbox, then retry";
            case SIGV4_UNSUPPORTED, SIGV4_SIGNATURE_MISMATCH -> "sign with AWS Signature Version 4 and the sandbox's sentinel key pair";
            case EGRESS_KILLED -> "stop retrying: egress stays closed until the proxy is restarted (the operator decides when)";
            case REPOSITORY_NOT_ALLOWED -> "the job's GitHub token reaches only the job's repositories";
            case REF_NOT_ALLOWED -> "push your work to the job's branch; pull requests into other branches are opened, not pushed";
            case GRAPHQL_NOT_ALLOWED -> "commit to the job's branch (git push, or createCommitOnBranch naming it); queries and pull"
                    + " request, review and comment mutations go";
            case CREDENTIAL_ENDPOINT_MISMATCH, SECRET_LEAK, PLAINTEXT_CREDENTIAL, CREDENTIAL_UNAVAILABLE ->
                    "see the mesa-egress README for reason " + reason.code();
            case ALLOWED -> throw new IllegalArgumentException("ALLOWED is not a refusal");
        };
    }
}
