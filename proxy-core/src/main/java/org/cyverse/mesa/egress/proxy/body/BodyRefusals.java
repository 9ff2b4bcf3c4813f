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
    public static Refusal recorded(RequestBodyGate.Finding finding, Destination destination, ProxyState state, long sentBytes, Exchange exchange,
            ProxyMetrics metrics) {
        if (finding.trailers() != null) {
            TrailerCheck.Outcome t = finding.trailers();
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
        } else if (finding.hit() != null) {
            String credential = finding.hit().finding().credential();
            exchange.foundInBody(credential, "body");
            metrics.leakBlocked(credential, "body");
        } else if (finding.dlpRule() != null) {
            exchange.dlpFound(finding.dlpRule(), "body");
            metrics.dlpFinding(finding.dlpRule(), "body", "block");
            metrics.leakBlocked("dlp:" + finding.dlpRule(), "body");
        }
        return of(finding, destination, state, sentBytes);
    }

    /**
     * A body a credential kind's check refused, in the form its client reads: a body that is not
     * what it claims is 400 (with how much had gone); a signature that is not the client's
     * {@code sigv4_signature_mismatch}; any other outcome the credential refusal it names (a push's
     * {@code ref_not_allowed}, answered once its body ended, so without the cut), with the
     * client's own answer when the check gave one (a receive-pack report).
     */
    private static Refusal checked(BodyCheck.Refusal refused, Destination destination, ProxyState state, String cut) {
        Refusal refusal = switch (refused.outcome()) {
            case MALFORMED -> Refusals.badRequest(Refusals.Problem.UNSCANNABLE_BODY, refused.detail() + cut);
            case BAD_SIGNATURE -> Refusals.of(Reason.SIGV4_SIGNATURE_MISMATCH, destination.host(), state.profile(), refused.detail() + cut);
            default -> CredentialRefusals.credential(refused.outcome(), refused.credential(), destination.host(), state.profile(),
                    refused.detail());
        };
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
    static Refusal of(RequestBodyGate.Finding finding, Destination destination, ProxyState state, long sentBytes) {
        String cut = sentBytes < 0 ? "" : "; found after " + sentBytes + " body bytes had been forwarded, past limits.scan_hold_bytes:"
                + " the upstream connection was reset before the body ended";
        if (finding.trailers() != null) {
            Refusal r = finding.trailers().refusal();
            return sentBytes < 0 ? r : new Refusal(r.status(), r.reason(), r.error() + cut, r.host(), r.hint(), r.rule(),
                    r.retryAfterSeconds(), r.details());
        }
        if (finding.checked() != null) { // a credential kind's check: a push the branch rule refused, chunks not the client's, ...
            return checked(finding.checked(), destination, state, cut);
        }
        if (finding.overloaded()) {
            return Refusals.of(Reason.OVERLOADED, destination.host(), state.profile(), "request bodies held for scanning would pass"
                    + " limits.scan_hold_total_bytes (" + state.config().limits().scanHoldTotalBytes() + ")");
        }
        if (finding.dlpRule() != null) {
            return Refusals.dlp(finding.dlpRule(), "body", destination.host(), state.profile());
        }
        if (finding.hit() == null) {
            return Refusals.badRequest(Refusals.Problem.UNSCANNABLE_BODY, finding.unscannable() + cut);
        }
        BodyScanner.Hit hit = finding.hit();
        String credential = hit.finding().credential();
        String host = destination.host(); // admitted: a host that held a secret would have been refused
        if (hit.finding().kind() == Finding.Kind.SECRET) {
            return CredentialRefusals.credential(Reason.SECRET_LEAK, credential, host, state.profile(), "the real secret of credential "
                    + credential + " in " + hit.describe() + "; agents hold sentinels, never real keys" + cut);
        }
        return CredentialRefusals.credential(Reason.CREDENTIAL_ENDPOINT_MISMATCH, credential, host, state.profile(), "a sentinel of credential "
                + credential + " in " + hit.describe() + " is headed to " + destination.authority() + ", outside the credential's scope"
                + cut);
    }
}
