package org.cyverse.mesa.egress.proxy.body;

import org.cyverse.mesa.egress.admission.AnswerStyles;
import org.cyverse.mesa.egress.admission.CredentialRefusals;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.admission.TrailerCheck;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;
import org.cyverse.mesa.egress.injector.scan.Finding;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;

/** The reason and facts of a body the gate stopped, for {@link Refusals} to answer. */
public final class BodyRefusals {

    private BodyRefusals() {}

    /** {@link #of}, with the finding recorded on the exchange and counted. */
    public static Refusal recorded(BodyFinding finding, Destination destination, ProxyState state, long sentBytes, Exchange exchange,
            ProxyMetrics metrics) {
        if (finding instanceof BodyFinding.Trailers trailers) {
            TrailerCheck.Outcome t = trailers.outcome();
            if (t.credential() != null) {
                exchange.foundInBody(t.credential(), "trailer");
            }
            if (t.injection() == Injection.Outcome.SECRET_LEAK || t.injection() == Injection.Outcome.MISMATCH) {
                metrics.leakBlocked(t.credential(), "trailer");
            } else if (t.dlpRule() != null) {
                exchange.dlpFound(t.dlpRule(), "trailer");
                metrics.dlpFinding(t.dlpRule(), "trailer", "block");
                metrics.leakBlocked("dlp:" + t.dlpRule(), "trailer");
            }
        } else if (finding instanceof BodyFinding.Leak leak) {
            String credential = leak.hit().finding().credential();
            exchange.foundInBody(credential, "body");
            metrics.leakBlocked(credential, "body");
        } else if (finding instanceof BodyFinding.Dlp dlp) {
            exchange.dlpFound(dlp.rule(), "body");
            metrics.dlpFinding(dlp.rule(), "body", "block");
            metrics.leakBlocked("dlp:" + dlp.rule(), "body");
        }
        return of(finding, destination, state, sentBytes);
    }

    /**
     * A body a check refused (a credential kind's, or any other that plugs in), in the form its
     * client reads: a body that is not what it claims is 400 (saying how much had gone); a refusal
     * tied to a credential has the credential's hint (a push's {@code ref_not_allowed}, answered
     * once its body ended, so without the cut); any other its reason's; with the client's own
     * answer when the check gave one (a receive-pack report).
     */
    private static Refusal checked(BodyCheck.Refusal refused, Destination destination, ProxyState state, String cut) {
        Reason reason = Reason.ofCode(refused.reason());
        Refusal refusal = reason == Reason.BAD_REQUEST ? Refusals.badRequest(Refusals.Problem.UNSCANNABLE_BODY, refused.detail() + cut)
                : refused.credential() == null ? Refusals.of(reason, destination.host(), state.profile(), refused.detail() + cut)
                : CredentialRefusals.credential(reason, refused.credential(), destination.host(), state.profile(), refused.detail());
        if (refused.answer() != null) {
            BodyCheck.Answer a = refused.answer();
            return refusal.answeredAs(new Refusal.Answer(a.status(), a.contentType(), a.body()));
        }
        return AnswerStyles.styled(refusal, refused.style());
    }

    /**
     * @param sentBytes how much of the request had gone upstream when the finding came (the body
     *     was over {@code limits.scan_hold_bytes}), or -1 when none of it had
     */
    static Refusal of(BodyFinding finding, Destination destination, ProxyState state, long sentBytes) {
        String cut = sentBytes < 0 ? "" : "; found after " + sentBytes + " body bytes had been forwarded, past limits.scan_hold_bytes:"
                + " the upstream connection was reset before the body ended";
        String host = destination.host(); // admitted: a host that held a secret would have been refused
        if (finding instanceof BodyFinding.Trailers trailers) {
            Refusal r = trailers.outcome().refusal();
            return sentBytes < 0 ? r : new Refusal(r.status(), r.reason(), r.error() + cut, r.host(), r.hint(), r.rule(),
                    r.retryAfterSeconds(), r.details());
        } else if (finding instanceof BodyFinding.Checked checked) {
            return checked(checked.refusal(), destination, state, cut);
        } else if (finding instanceof BodyFinding.Overloaded) {
            return Refusals.of(Reason.OVERLOADED, host, state.profile(), "request bodies held for scanning would pass"
                    + " limits.scan_hold_total_bytes (" + state.config().limits().scanHoldTotalBytes() + ")");
        } else if (finding instanceof BodyFinding.Dlp dlp) {
            return Refusals.dlp(dlp.rule(), "body", host, state.profile());
        } else if (finding instanceof BodyFinding.Unscannable unscannable) {
            return Refusals.badRequest(Refusals.Problem.UNSCANNABLE_BODY, unscannable.detail() + cut);
        }
        BodyScanner.Hit hit = ((BodyFinding.Leak) finding).hit();
        String credential = hit.finding().credential();
        if (hit.finding().kind() == Finding.Kind.SECRET) {
            return CredentialRefusals.credential(Reason.SECRET_LEAK, credential, host, state.profile(), "the real secret of credential "
                    + credential + " in " + hit.describe() + "; agents hold sentinels, never real keys" + cut);
        }
        return CredentialRefusals.credential(Reason.CREDENTIAL_ENDPOINT_MISMATCH, credential, host, state.profile(), "a sentinel of credential "
                + credential + " in " + hit.describe() + " is headed to " + destination.authority() + ", outside the credential's scope"
                + cut);
    }
}
