package org.cyverse.mesa.egress.proxy.admin;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.audit.AuditRecord;
import org.cyverse.mesa.egress.audit.AuditSink;
import org.cyverse.mesa.egress.proxy.approval.ApprovalInbox;
import org.cyverse.mesa.egress.proxy.connection.RefusalResponses;

/**
 * The admin port's state-changing calls, and the approval inbox's list (SPEC.md "Admin
 * endpoints"): each needs {@code Authorization: Bearer <admin token>}, checked before the path is
 * even looked at; a call without it answers 401 {@code admin_unauthorized}. Every call, let through or not, is one audit
 * record ({@code mode: admin}).
 */
public final class AdminCalls {

    private static final Logger LOG = Logger.getLogger(AdminCalls.class.getName());

    private final AdminToken token;
    private final Function<String, KillSwitch.Outcome> kill;
    private final AuditSink audit;
    private final Supplier<String> profile;
    private final ApprovalCalls approvals;

    /**
     * @param kill pulls the kill switch with a trigger description
     * @param profile the profile in force, for refusal bodies and audit records
     */
    public AdminCalls(AdminToken token, Function<String, KillSwitch.Outcome> kill, AuditSink audit, Supplier<String> profile, ApprovalInbox inbox) {
        this.approvals = new ApprovalCalls(inbox);
        this.token = token;
        this.kill = kill;
        this.audit = audit;
        this.profile = profile;
    }

    FullHttpResponse answer(Channel channel, FullHttpRequest request) {
        long start = System.nanoTime();
        String path = request.uri();
        int q = path.indexOf('?');
        if (q >= 0) {
            path = path.substring(0, q);
        }
        String client = client(channel);
        String method = request.method().name();
        AdminToken.Caller caller = token.check(request.headers().get(HttpHeaderNames.AUTHORIZATION));
        AdminToken.Check check = caller.check();
        FullHttpResponse response;
        if (check != AdminToken.Check.OK) {
            LOG.warning("admin " + method + " " + abbreviate(path) + " from " + client + " refused: " + describe(check));
            Refusal refusal = Refusals.of(Reason.ADMIN_UNAUTHORIZED, null, profile.get(), describe(check));
            response = RefusalResponses.render(refusal, profile.get(), false);
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"mesa-egress-admin\"");
            record(start, client, channel, method, path, false, Reason.ADMIN_UNAUTHORIZED.code(), null, 401);
            return response;
        }
        if (ApprovalCalls.handles(path)) {
            response = approvals.answer(request.method(), path, request, caller.label());
            record(start, client, channel, method, path, response.status().code() < 400,
                    (response.status().code() < 400 ? Reason.ALLOWED : Reason.BAD_REQUEST).code(),
                    "admin:" + abbreviate(path) + " by " + caller.label(), response.status().code());
            return response;
        }
        switch (path) {
            case "/kill" -> {
                KillSwitch.Outcome outcome = kill.apply("admin POST /kill from " + client);
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("killed", true);
                body.put("at", outcome.pulled().at().toString());
                body.put("trigger", outcome.pulled().trigger());
                body.put("already", !outcome.first());
                response = AdminResponses.json(HttpResponseStatus.OK, body);
            }
            default -> response = AdminResponses.text(HttpResponseStatus.NOT_FOUND, "not found; POST /kill, GET /approvals,"
                    + " POST /approvals/{id}/approve, POST /approvals/{id}/deny\n");
        }
        record(start, client, channel, method, path, true, Reason.ALLOWED.code(), "admin:" + abbreviate(path) + " by " + caller.label(),
                response.status().code());
        return response;
    }

    private void record(long start, String client, Channel channel, String method, String path, boolean allowed, String reason, String rule,
            int status) {
        Integer port = channel.localAddress() instanceof InetSocketAddress a ? a.getPort() : null;
        audit.record(AuditRecord.builder()
                .ts(Instant.now().toString())
                .profile(profile.get())
                .client(client)
                .mode("admin")
                .method(method)
                .scheme("http")
                .port(port)
                .path(abbreviate(path))
                .decision(allowed ? "allow" : "deny")
                .reason(reason)
                .rule(rule)
                .status(status)
                .durationMs((System.nanoTime() - start) / 1_000_000)
                .build());
    }

    private static String describe(AdminToken.Check check) {
        return switch (check) {
            case NOT_CONFIGURED -> "no admin.token_file is configured, so no call may change state";
            case MISSING -> "no Authorization: Bearer token";
            case WRONG -> "wrong admin token";
            case UNREADABLE -> "admin.token_file cannot be read";
            case OK -> "ok";
        };
    }

    private static String client(Channel channel) {
        return channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress().getHostAddress() : String.valueOf(channel.remoteAddress());
    }

    private static String abbreviate(String path) {
        String p = path.length() <= 64 ? path : path.substring(0, 64) + "...";
        return p.replaceAll("[^\\x21-\\x7e]", "?");
    }
}
