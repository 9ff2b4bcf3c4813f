package org.cyverse.mesa.egress.proxy.exchange;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.RequestFacts;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.injector.AuditPart;
import org.cyverse.mesa.egress.audit.AuditRecord;
import org.cyverse.mesa.egress.injector.Injector;
import org.cyverse.mesa.egress.injector.RequestUse;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;

/**
 * One request or tunnel while it runs: its {@link Verdict} (what was decided, and what the audit
 * record says of it), the bytes relayed, and the one audit line, counter and duration it ends
 * with. Confined to the client channel's event loop.
 */
public final class Exchange {

    private final long startNanos = System.nanoTime();
    private final Instant start = Instant.now();
    private final String profile;
    private final String client;
    private final String method;
    private Verdict verdict;
    private Verdict.Mode mode = Verdict.Mode.FORWARD;
    private boolean finished;
    /** A finding in the body, after the verdict: the credential and place the record names instead of the verdict's. */
    private String bodyCredential;
    private String bodyPlace;
    private String dlpRule;
    /** The refs a git push named, once its command list was read; {@code null} otherwise. */
    /** A WebSocket's messages and close, once it ended; {@code null} for everything else. */
    private AuditRecord.WebSocket websocket;
    /** Body bytes relayed toward the upstream (a tunnel counts its own). */
    public long bytesUp;
    /** Body bytes relayed toward the client. */
    public long bytesDown;

    /** {@code h2} on an HTTP/2 stream, else {@code null} (HTTP/1.x). */
    private final String protocol;

    private Exchange(String profile, String client, String method, String protocol) {
        this.profile = profile;
        this.client = client;
        this.method = method;
        this.protocol = protocol;
    }

    /**
     * An exchange starting now on client connection {@code channel}.
     *
     * @param method the request's method, or {@code null} when no request head was parsed
     */
    public static Exchange begin(ExchangeContext proxy, Channel channel, String method) {
        return new Exchange(proxy.state().profile(), clientOf(channel), method,
                channel instanceof Http2StreamChannel ? "h2" : null);
    }

    /** An exchange no admission decided: an HTTP/2 connection with the agent (not one of its streams), for its error. */
    public static Exchange beginHttp2Connection(ExchangeContext proxy, Channel connection) {
        Exchange exchange = new Exchange(proxy.state().profile(), clientOf(connection), null, "h2");
        exchange.mode = Verdict.Mode.INTERCEPT;
        return exchange;
    }

    private static String clientOf(Channel channel) {
        return channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress().getHostAddress() + ":" + a.getPort()
                : String.valueOf(channel.remoteAddress());
    }

    /** The admission's verdict on {@code facts}, recorded here and, where credentials were involved, in the metrics. */
    public Verdict decide(ExchangeContext proxy, ProxyState snapshot, RequestFacts facts) {
        Verdict decided = snapshot.admission().decide(facts);
        decided(decided);
        proxy.metrics().credentials(decided);
        return decided;
    }

    /** What the admission decided: the audit record's facts from now on. */
    void decided(Verdict decided) {
        verdict = decided;
        mode = decided.mode();
    }

    /** A secret or an out-of-scope sentinel of {@code credential} was found in the body, in {@code place}. */
    public void foundInBody(String credential, String place) {
        bodyCredential = credential;
        bodyPlace = place;
    }

    /** A {@code dlp} rule matched the body (refused in block mode, recorded in audit mode). */
    public void dlpFound(String rule, String place) {
        if (dlpRule == null) {
            dlpRule = rule;
            if (bodyPlace == null) {
                bodyPlace = place;
            }
        }
    }

    /** A {@code dlp} rule matched the body in audit mode: recorded and counted, the request goes on. */
    public void dlpAudited(String rule, String place, ProxyMetrics metrics) {
        dlpFound(rule, place);
        metrics.dlpFinding(rule, place, "audit");
    }

    /** Body bytes sent upstream: counted for the audit record and, as they flow, in the credentials' byte limits. */
    public void up(long n) {
        bytesUp += n;
        if (verdict != null) {
            verdict.budget().moved(n, 0);
        }
    }

    /** Body bytes relayed to the client, counted as {@link #up} counts. */
    public void down(long n) {
        bytesDown += n;
        if (verdict != null) {
            verdict.budget().moved(0, n);
        }
    }

    /**
     * Runs the step that turns an admitted request into an exchange under way; if it throws, the
     * place the request holds in its credentials' budgets is freed (the connection then closes),
     * so that no failure can hold a {@code concurrent} place until a restart.
     */
    public void releasingOnFailure(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            if (verdict != null) {
                verdict.budget().release();
            }
            throw e;
        }
    }

    /** Records an allowed exchange that ended with {@code status} (200 for a tunnel). */
    public void finishAllowed(ExchangeContext proxy, int status) {
        Verdict v = verdict;
        if (v != null && v.mode() != Verdict.Mode.TUNNEL && !v.applied().isEmpty() && !finished) {
            // The upstream's answer to a request that carried a credential: a refusal there (a
            // budget spent, a key blocked or expired) is passed on as sent, and counted here.
            for (var applied : v.applied()) {
                proxy.metrics().upstreamRefusal(applied.credential(), status);
            }
        }
        finish(proxy, Reason.ALLOWED, status, null, null);
    }

    /**
     * Records a response cut short after its head went out with {@code status} (a timeout, the
     * upstream gone): the reason is the failure's, the status what the client got, the rule says
     * it was truncated. Never a plain allow.
     */
    public void finishCutShort(ExchangeContext proxy, Refusal failure, int status) {
        finish(proxy, failure.reason(), status, failure.host(), "truncated: " + failure.error());
    }

    /**
     * Records a WebSocket connection that has ended: allowed, or ended by the proxy for
     * {@code refusal} (a finding, a protocol error); the status is the {@code 101} the client had.
     */
    public void finishWebSocket(ExchangeContext proxy, Refusal refusal, AuditRecord.WebSocket how) {
        websocket = how;
        if (refusal == null) {
            finishAllowed(proxy, 101);
        } else {
            finish(proxy, refusal.reason(), 101, refusal.host(), refusal.rule());
        }
    }

    /** Records a refusal: an answer given, or a tunnel closed for it. */
    public void finishRefused(ExchangeContext proxy, Refusal refusal) {
        finish(proxy, refusal.reason(), refusal.answer() != null ? refusal.answer().status() : refusal.status(), refusal.host(),
                refusal.rule());
    }

    private void finish(ExchangeContext proxy, Reason reason, int status, String refusedHost, String refusedRule) {
        if (finished) {
            return;
        }
        finished = true;
        if (verdict != null) {
            verdict.budget().release();
        }
        long nanos = System.nanoTime() - startNanos;
        boolean allowed = reason == Reason.ALLOWED;
        proxy.metrics().request(allowed, reason, mode.label(), nanos / 1e9);
        proxy.metrics().bytesUp(bytesUp);
        proxy.metrics().bytesDown(bytesDown);
        // The one place a record is built: a field the client wrote (or a message quoting it) that
        // holds a value any credential has held is withheld, whatever decided the request.
        Injector redaction = proxy.state().injector();
        AuditRecord.Builder record = AuditRecord.builder()
                .ts(start.toString())
                .profile(profile)
                .client(client)
                .mode(mode.label())
                .decision(allowed ? "allow" : "deny")
                .reason(reason.code())
                .status(status)
                .bytesUp(bytesUp)
                .bytesDown(bytesDown)
                .durationMs(nanos / 1_000_000)
                .websocket(websocket)
                .protocol(protocol);
        Verdict v = verdict;
        if (v == null) { // nothing was decided: the head's method and what the failure names
            record.method(redaction.redactField(method))
                    .host(redaction.redactField(refusedHost))
                    .rule(redaction.redactField(refusedRule))
                    .credential(bodyCredential)
                    .place(bodyPlace)
                    .dlp(dlpRule);
        } else { // what was decided, but the refusal's rule and a finding in the body come first
            record.method(redaction.redactField(v.method()))
                    .scheme(v.scheme())
                    .host(redaction.redactField(v.host() != null ? v.host() : refusedHost))
                    .port(v.port())
                    .path(redaction.redactField(v.path()))
                    .rule(redaction.redactField(refusedRule != null ? refusedRule : v.rule()))
                    .credential(bodyCredential != null ? bodyCredential : v.credential())
                    .place(bodyPlace != null ? bodyPlace : v.place())
                    .dlp(dlpRule != null ? dlpRule : v.dlp())
                    .parts(auditParts(v));
        }
        proxy.audit().record(record.build());
    }

    /** What the credential kinds add to the record (the {@code github} part), taken now that the request ended. */
    private static List<AuditPart> auditParts(Verdict v) {
        if (v == null || v.uses().isEmpty()) {
            return List.of();
        }
        List<AuditPart> parts = new ArrayList<>();
        for (RequestUse use : v.uses()) {
            AuditPart part = use.audit();
            if (part != null) {
                parts.add(part);
            }
        }
        return parts;
    }

    boolean finished() {
        return finished;
    }
}
