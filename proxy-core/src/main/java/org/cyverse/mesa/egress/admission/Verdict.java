package org.cyverse.mesa.egress.admission;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.RequestUse;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.budget.BudgetTicket;
import org.cyverse.mesa.egress.injector.scan.DlpPlan;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;

/**
 * What {@link Admission#decide} made of one request: allowed (with what to send), refused (with
 * the answer), or reported (sent as if allowed, with the answer it would have had), and every fact
 * the audit record, the metrics and {@code check} report. Immutable.
 *
 * @param mode forward (plain http), tunnel (opaque CONNECT) or intercept
 * @param method as the client sent it ({@code CONNECT} for a CONNECT)
 * @param scheme {@code http} or {@code https}, or {@code null} when the target did not parse
 * @param host the canonical host (the raw one when it did not parse), scrubbed of real secret values on a refusal; or {@code null}
 * @param port the port, or {@code null} when the target did not parse
 * @param path the path without the query for the audit record ({@code [redacted]} when the request carried a real
 *     secret, whatever refused it), or {@code null}
 * @param destination the canonical destination, or {@code null} when the target did not parse
 * @param policy the policy's decision (SPEC.md step 3), or {@code null} when it was not reached
 * @param credential the credential the audit record names: the one refused, or the first applied; or {@code null}
 * @param injection what step 5 did, or {@code null} when it was not reached
 * @param applied every credential applied, in config order, with what each did
 * @param outgoing what to send upstream, for a request that goes on; {@code null} for a CONNECT or a refusal
 * @param refusal the answer when refused, the answer it would have been when reported, {@code null} when allowed
 * @param disposition allowed, refused or reported: whether the refusal, if any, is the answer
 * @param unreadable whether the refusal came from a target the proxy could not parse, after which
 *     the rest of the connection's input cannot be trusted either
 * @param place where a refused request carried a secret or a sentinel ({@code header}, {@code query}, {@code path},
 *     {@code host}, {@code method}), or where a {@code dlp} rule matched; or {@code null}
 * @param dlp the {@code dlp} rule that matched the head (refused in block mode, recorded in audit mode), or {@code null}
 * @param budget the place an allowed request holds in its credentials' {@code limits}: the one part of a verdict with
 *     state, released by whoever runs the request when it ends ({@code Exchange}); {@link BudgetTicket#NONE} otherwise
 * @param uses what each credential kind made of the request (its audit part, its body check, how its client reads a
 *     refusal), in step order; empty when none
 */
public record Verdict(Mode mode, String method, String scheme, String host, Integer port, String path, Destination destination,
        Decision policy, String credential, Injection.Outcome injection, List<Injection.Applied> applied, Outgoing outgoing,
        Refusal refusal, Disposition disposition, boolean unreadable, String place, String dlp, BudgetTicket budget,
        List<RequestUse> uses) {

    /** The {@code mode} of SPEC.md's metrics and audit log. */
    public enum Mode {
        FORWARD, TUNNEL, INTERCEPT;

        private final String label = name().toLowerCase(Locale.ROOT);

        /** {@code forward}, {@code tunnel} or {@code intercept}. */
        public String label() {
            return label;
        }
    }

    /**
     * What becomes of the request: the decision kept apart from its enforcement, as smokescreen's
     * {@code Report} policy allows and reports ({@link EnforcementPolicy} chooses).
     */
    public enum Disposition {
        /** No refusal: the request goes on. */
        ALLOWED,
        /** The refusal is the answer: the request goes no further. */
        REFUSED,
        /**
         * Refused by a rule under {@code enforcement: report}: the request goes on as if allowed, and
         * the refusal is what it would have been answered. Nothing yields it yet ({@link
         * EnforcementPolicy#ENFORCE_ALL}); the issue that reads {@code enforcement:} must also write
         * {@code decision: report} with this reason in the audit record (whose decision is allow or deny
         * today), count it under its own {@code decision} label in the metrics, say it in {@code check}'s
         * output, and keep the callers that read {@link Verdict#reason} or {@link Verdict#refusal}
         * without asking {@link Verdict#allowed} (the held requests of the approval inbox, the metrics)
         * from taking it for a refusal.
         */
        REPORTED
    }

    /**
     * The request to send upstream: origin-form, hop-by-hop fields removed, credentials applied.
     *
     * @param bodySubstitution sentinel to secret, for credentials that opted in to body substitution
     * @param bodyScans what the body must be found free of before it leaves, one plan per credential
     *     kind that has something to look for; empty when there is nothing
     * @param bodyDlp the {@code dlp} rules for the body, or {@code null} when {@code dlp} is off
     * @param trailers what judges the trailer fields of a chunked body (step 5 again, for them)
     * @param bodyChecks the checks the credential kinds gave the body (a push's branch rule, re-signed aws-chunked
     *     signatures), run in this order on every chunk; empty when none
     */
    public record Outgoing(String pathAndQuery, List<Map.Entry<String, String>> headers, Map<String, Secret> bodySubstitution,
            List<ScanPlan> bodyScans, DlpPlan bodyDlp, TrailerCheck trailers, List<BodyCheck.Plan> bodyChecks) {
        public Outgoing {
            headers = List.copyOf(headers);
            bodySubstitution = Map.copyOf(bodySubstitution);
            bodyScans = List.copyOf(bodyScans);
            bodyChecks = List.copyOf(bodyChecks);
        }

        /** Without the path, the query or header values: once injected they hold the real secret. */
        @Override
        public String toString() {
            return "Outgoing[" + headers.size() + " headers]";
        }
    }

    public Verdict {
        applied = applied == null ? List.of() : List.copyOf(applied);
        budget = budget == null ? BudgetTicket.NONE : budget;
        uses = uses == null ? List.of() : List.copyOf(uses);
        if ((refusal == null) != (disposition == Disposition.ALLOWED) || disposition == Disposition.REFUSED && outgoing != null) {
            throw new IllegalArgumentException(disposition + (refusal == null ? " without" : " with") + " a refusal"
                    + (outgoing == null ? "" : " and a request to send"));
        }
    }

    /** Whether the request goes on: allowed, or refused only in a report. */
    public boolean allowed() {
        return disposition != Disposition.REFUSED;
    }

    /** Whether the request goes on although refused, the refusal only reported. */
    public boolean reported() {
        return disposition == Disposition.REPORTED;
    }

    /** {@link Reason#ALLOWED}, or the refusal's reason: the answer's, or for a reported verdict the one it would have had. */
    public Reason reason() {
        return refusal == null ? Reason.ALLOWED : refusal.reason();
    }

    /**
     * Without the destination, the outgoing request or the refusal's text: for a person reading a
     * log, with nothing a client wrote that could hold a secret but the (scrubbed) host.
     */
    @Override
    public String toString() {
        return "Verdict[" + mode.label() + " " + method + " " + host + (port == null ? "" : ":" + port) + " " + reason().code()
                + (reported() ? " (reported)" : "")
                + ", rule=" + rule() + ", credential=" + credential + ", applied=" + applied + "]";
    }

    /** The rule that decided: the refusal's, else the policy's; {@code null} when none matched. */
    public String rule() {
        if (refusal != null && refusal.rule() != null) {
            return refusal.rule();
        }
        return policy == null ? null : policy.rule();
    }
}
