package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.admission.CredentialRefusals;
import org.cyverse.mesa.egress.admission.GitHubRefusals;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.admission.TrailerCheck;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.github.PushCheck;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;
import org.cyverse.mesa.egress.injector.scan.Finding;
import org.cyverse.mesa.egress.injector.sigv4.ChunkResigner;

/** The reason and facts of a body the gate stopped, for {@link Refusals} to answer. */
final class BodyRefusals {

    private BodyRefusals() {}

    /** {@link #of}, with the finding recorded on the exchange and counted. */
    static Refusal recorded(RequestBodyGate.Finding finding, Destination destination, ProxyState state, long sentBytes, Exchange exchange,
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
        if (finding.push() != null) { // github_app: a push the branch rule refused, or a body that is no command list
            PushCheck check = finding.push();
            return check.outcome() == PushCheck.Outcome.REFUSED ? GitHubRefusals.push(check, destination.host(), state.profile())
                    : GitHubRefusals.unreadablePush(check, Refusals.badRequest(Refusals.Problem.UNSCANNABLE_BODY, "git receive-pack: "
                    + check.detail() + cut));
        }
        if (finding.resigning() != null) { // aws_sigv4 signed chunks that are not the client's, or whose framing lies
            ChunkResigner.ChunkException e = finding.resigning();
            return e.malformed() ? Refusals.badRequest(Refusals.Problem.UNSCANNABLE_BODY, "aws-chunked: " + e.getMessage() + cut)
                    : Refusals.of(Reason.SIGV4_SIGNATURE_MISMATCH, destination.host(), state.profile(), e.getMessage() + cut);
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
