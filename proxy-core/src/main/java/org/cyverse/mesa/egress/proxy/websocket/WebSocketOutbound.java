package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.admission.CredentialRefusals;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.body.RequestBodyScan;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.StreamReplacer;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;
import org.cyverse.mesa.egress.injector.scan.DlpPlan;
import org.cyverse.mesa.egress.injector.scan.DlpRule;
import org.cyverse.mesa.egress.injector.scan.Finding;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.body.BodyRewriting;
import org.cyverse.mesa.egress.proxy.body.HoldBudget;

/**
 * The agent's side of a WebSocket: each text or binary message is held, frame by frame, until
 * its last frame has been scanned as a request body is (every value any credential holds, the
 * sentinels of credentials the destination is outside of, the {@code dlp} rules), so that no part
 * of a message that carries a secret ever leaves; then sentinels of credentials that opted in to
 * body substitution are replaced and the frames go. Control frames (ping, pong, the close
 * reason) are scanned too: 125 bytes hold a key. Held bytes count against
 * {@code limits.scan_hold_total_bytes} with request bodies'. With nothing to look for or
 * replace, frames are relayed as they come.
 */
final class WebSocketOutbound {

    /** What the messages are scanned for and rewritten with, from the upgrade request's verdict. */
    record Plan(List<ScanPlan> scans, DlpPlan dlp, Map<String, Secret> substitution, int maxMessageBytes) {
        static Plan of(Verdict.Outgoing out, ProxyState state) {
            return new Plan(out.bodyScans(), out.bodyDlp(), out.bodySubstitution(), state.config().limits().websocketMaxMessageBytes());
        }

        boolean holds() {
            return !scans.isEmpty() || dlp != null || !substitution.isEmpty();
        }
    }

    private final WebSocketOwner session;
    private final Plan plan;
    private final HoldBudget budget;
    private final long budgetMax;
    private final List<WebSocketFrame> held = new ArrayList<>();
    private RequestBodyScan scan;
    private long size;
    private long charged;

    WebSocketOutbound(WebSocketOwner session, Plan plan, HoldBudget budget, long budgetMax) {
        this.session = session;
        this.plan = plan;
        this.budget = budget;
        this.budgetMax = budgetMax;
    }

    /** A text, binary, continuation, ping or pong frame from the client. */
    void frame(WebSocketFrame frame) {
        if (frame instanceof PingWebSocketFrame || frame instanceof PongWebSocketFrame) {
            if (clean(frame.content())) {
                session.relay(WebSocketOwner.Side.CLIENT, List.of(frame));
            } else {
                frame.release();
            }
            return;
        }
        size += frame.content().readableBytes();
        if (size > plan.maxMessageBytes()) {
            frame.release();
            session.end(Refusals.badRequest(Refusals.Problem.BAD_WEBSOCKET_FRAME, "a message of more than " + plan.maxMessageBytes()
                    + " bytes (limits.websocket_max_message_bytes)"), WebSocketOwner.Side.PROXY, WebSocketCloseStatus.MESSAGE_TOO_BIG,
                    "message over limits.websocket_max_message_bytes");
            return;
        }
        if (!plan.holds()) {
            relay(List.of(frame), frame.isFinalFragment());
            return;
        }
        int n = frame.content().readableBytes();
        if (!budget.take(n, budgetMax)) {
            frame.release();
            session.end(Refusals.of(Reason.OVERLOADED, session.destination().host(), session.state().profile(), "WebSocket messages and"
                    + " request bodies held for scanning would pass limits.scan_hold_total_bytes"), WebSocketOwner.Side.PROXY,
                    WebSocketCloseStatus.TRY_AGAIN_LATER, "the proxy holds too much for scanning now");
            return;
        }
        charged += n;
        held.add(frame);
        try {
            if (scan == null) {
                scan = RequestBodyScan.of(plan.scans(), plan.dlp(), null, false);
            }
            BodyScanner.Hit hit = scan.scan(frame.content());
            if (hit == null && frame.isFinalFragment()) {
                hit = scan.finish();
            }
            if (hit != null) {
                found(hit);
                return;
            }
        } catch (RequestBodyScan.UnscannableException e) {
            throw new IllegalStateException("a message has no content coding to fail on", e);
        }
        if (!frame.isFinalFragment()) {
            session.readMore(WebSocketOwner.Side.CLIENT);
            return;
        }
        DlpRule rule = scan.dlpFound();
        if (rule != null && plan.dlp().block()) {
            dlpBlocked(rule);
            return;
        }
        if (rule != null) {
            session.exchange().dlpAudited(rule.id(), "websocket", session.proxy().metrics);
        }
        List<WebSocketFrame> out = substituted(new ArrayList<>(held));
        held.clear();
        abandon();
        relay(out, true);
    }

    private void relay(List<WebSocketFrame> frames, boolean messageEnds) {
        if (messageEnds) {
            session.messageRelayed(WebSocketOwner.Side.CLIENT);
            size = 0;
        }
        session.relay(WebSocketOwner.Side.CLIENT, frames);
    }

    /** The message's frames with the opted-in sentinels replaced by their secrets (each frame consumed). */
    private List<WebSocketFrame> substituted(List<WebSocketFrame> frames) {
        if (plan.substitution().isEmpty()) {
            return frames;
        }
        StreamReplacer replacer = BodyRewriting.sentinelsToSecrets(plan.substitution());
        List<WebSocketFrame> out = new ArrayList<>(frames.size());
        for (WebSocketFrame f : frames) {
            out.add(BodyRewriting.rewrite(f, replacer)); // the last, final frame gets what the replacer held back
        }
        return out;
    }

    /** Whether a control frame's payload (or a close frame's) is free of every needle; if not, the session is ended for it. */
    boolean clean(ByteBuf payload) {
        if (plan.scans().isEmpty() && plan.dlp() == null) {
            return true;
        }
        try (RequestBodyScan control = RequestBodyScan.of(plan.scans(), plan.dlp(), null, false)) {
            BodyScanner.Hit hit = control.scan(payload);
            hit = hit != null ? hit : control.finish();
            if (hit != null) {
                found(hit);
                return false;
            }
            DlpRule rule = control.dlpFound();
            if (rule != null && plan.dlp().block()) {
                dlpBlocked(rule);
                return false;
            }
            return true;
        } catch (RequestBodyScan.UnscannableException e) {
            throw new IllegalStateException("a frame has no content coding to fail on", e);
        }
    }

    /** The client's close frame, scanned; {@code false} (the frame released, the session ended) when its reason held a needle. */
    boolean cleanClose(CloseWebSocketFrame close) {
        if (clean(close.content())) {
            return true;
        }
        close.release();
        return false;
    }

    private void found(BodyScanner.Hit hit) {
        String credential = hit.finding().credential();
        session.exchange().foundInBody(credential, "websocket");
        session.proxy().metrics.leakBlocked(credential, "websocket");
        String where = "a WebSocket message" + (hit.view().isEmpty() ? "" : " (" + hit.view() + ")")
                + (hit.finding().form().equals("as is") ? "" : " " + hit.finding().form());
        String host = session.destination().host();
        String profile = session.state().profile();
        Refusal refusal = hit.finding().kind() == Finding.Kind.SECRET
                ? CredentialRefusals.credential(Reason.SECRET_LEAK, credential, host, profile, "the real secret of credential " + credential
                        + " in " + where + "; agents hold sentinels, never real keys")
                : CredentialRefusals.credential(Reason.CREDENTIAL_ENDPOINT_MISMATCH, credential, host, profile, "a sentinel of credential "
                        + credential + " in " + where + " is headed to " + session.destination().authority()
                        + ", outside the credential's scope");
        closeFor(refusal, refusal.reason().code() + " (credential " + credential + ")");
    }

    private void dlpBlocked(DlpRule rule) {
        session.exchange().dlpFound(rule.id(), "websocket");
        session.proxy().metrics.dlpFinding(rule.id(), "websocket", "block");
        session.proxy().metrics.leakBlocked("dlp:" + rule.id(), "websocket");
        closeFor(Refusals.dlp(rule.id(), "websocket", session.destination().host(), session.state().profile()), "dlp rule " + rule.id());
    }

    /** Ends the session with 1008 and a reason the agent can read (RFC 6455 section 5.5: at most 123 bytes of it). */
    private void closeFor(Refusal refusal, String what) {
        byte[] reason = ("mesa-egress refused: " + what).getBytes(StandardCharsets.UTF_8);
        String text = new String(reason, 0, Math.min(reason.length, 123), StandardCharsets.UTF_8);
        session.end(refusal, WebSocketOwner.Side.PROXY, WebSocketCloseStatus.POLICY_VIOLATION, text);
    }

    /** Drops a message not yet relayed (the connection is closing) and gives its bytes back. */
    void abandon() {
        held.forEach(WebSocketFrame::release);
        held.clear();
        budget.give(charged);
        charged = 0;
        size = 0;
        if (scan != null) {
            scan.close();
            scan = null;
        }
    }
}
