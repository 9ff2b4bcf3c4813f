package org.cyverse.mesa.egress.admission;

import java.util.Objects;
import java.util.function.Function;

/**
 * Whether a refusal is enforced or only reported: the plug-in point of SPEC.md's {@code enforcement:
 * enforce | report} (top level, per allow rule, per MCP rule), consulted by {@link VerdictDraft} for
 * every refusal {@link Admission#decide} reaches. Until the issue that reads that key, the proxy runs
 * with {@link #ENFORCE_ALL}, and every refusal is answered as before.
 *
 * <p>Report exists to try a policy before enforcing it: what is reportable is what an operator
 * chooses, the allow-list's rules and the approval inbox standing in for them. Everything else is
 * enforced whatever the configured choice says ({@link #reportable}): the checks SPEC.md names as
 * always enforced, and every refusal that is not a policy choice at all, after which there is no
 * request the proxy could let go on. Immutable.
 */
final class EnforcementPolicy {

    /** Every refusal is enforced: the proxy as it behaves before {@code enforcement:} is read. */
    static final EnforcementPolicy ENFORCE_ALL = new EnforcementPolicy(refusal -> Enforcement.ENFORCE);

    private final Function<Refusal, Enforcement> choice;

    private EnforcementPolicy(Function<Refusal, Enforcement> choice) {
        this.choice = choice;
    }

    /**
     * A policy that asks {@code choice} about each refusal of a {@link #reportable} reason (the
     * refusal names its rule, for a per-rule choice), and never about the others.
     */
    static EnforcementPolicy choosing(Function<Refusal, Enforcement> choice) {
        return new EnforcementPolicy(Objects.requireNonNull(choice, "choice"));
    }

    /** Whether {@code refusal} is answered, or only reported while the request goes on. */
    Enforcement of(Refusal refusal) {
        return reportable(refusal.reason()) ? Objects.requireNonNull(choice.apply(refusal), "enforcement") : Enforcement.ENFORCE;
    }

    /**
     * Whether a refusal of {@code reason} may be only reported. An exhaustive switch: a new reason
     * does not compile until it is placed on one side.
     *
     * @throws IllegalArgumentException for {@link Reason#ALLOWED}, which is no refusal
     */
    static boolean reportable(Reason reason) {
        return switch (reason) {
            // The allow-list's rules (deny list included), what enforcement: report is for.
            case HOST_NOT_ALLOWED, PORT_NOT_ALLOWED, METHOD_NOT_ALLOWED, PATH_NOT_ALLOWED -> true;
            // A host the allow-list does not name, that the inbox could approve: the policy's refusal in another form.
            // The approval is asked for before enforcement is known (ApprovalStep), so a reported one is still opened.
            case APPROVAL_REQUIRED -> true;
            // SPEC.md: always enforced. The guard keeps private, loopback and metadata addresses out of reach; a leak,
            // a sentinel out of its credential's hosts and the kill switch stop what must never leave.
            case ADDRESS_NOT_ALLOWED, SECRET_LEAK, CREDENTIAL_ENDPOINT_MISMATCH, EGRESS_KILLED -> false;
            // A credential's own protection, not the egress policy: over plain http, beyond the job's repositories or
            // branch (the token's scope, as credential_endpoint_mismatch), or past the limits that guard its quota.
            case PLAINTEXT_CREDENTIAL, REPOSITORY_NOT_ALLOWED, REF_NOT_ALLOWED, GRAPHQL_NOT_ALLOWED, CREDENTIAL_BUDGET_EXCEEDED -> false;
            // Nothing the proxy could send: no value to inject, a signature it cannot re-sign.
            case CREDENTIAL_UNAVAILABLE, SIGV4_UNSUPPORTED, SIGV4_SIGNATURE_MISMATCH -> false;
            // Safety of inspection: TRACE echoes injected credentials, a nested CONNECT escapes every check, and a
            // request naming another host than the tunnel's (domain fronting) would be judged as one it is not.
            case METHOD_REFUSED, HOST_MISMATCH -> false;
            // Framing: a request the proxy cannot read as the upstream would is no request to let through.
            case BAD_REQUEST, HEADERS_TOO_LARGE, HEADER_TIMEOUT -> false;
            // Failures, not decisions, and the admin port, which is not egress.
            case DNS_FAILURE, UPSTREAM_UNREACHABLE, UPSTREAM_TLS_ERROR, UPSTREAM_TIMEOUT, OVERLOADED, ADMIN_UNAUTHORIZED -> false;
            case ALLOWED -> throw new IllegalArgumentException("ALLOWED is not a refusal");
        };
    }
}
