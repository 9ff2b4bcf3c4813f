package org.cyverse.mesa.egress.admission;

import java.util.Locale;
import org.cyverse.mesa.egress.allowlist.Decision;

/**
 * The reason codes of SPEC.md: the value of {@code X-Mesa-Egress-Reason}, of the audit record's
 * {@code reason} and of the {@code reason} metric label. {@link #ALLOWED} marks a request that
 * was let through.
 *
 * <p>The whole vocabulary lives here, beside {@link Refusals}, the one map from a reason to its
 * answer, and {@link EnforcementPolicy#reportable}, which says whose refusals may be only reported.
 * The allow-list gives five of these codes, as {@link Decision.Reason}, and knows no other;
 * {@link #of(Decision.Reason)} maps them.
 */
public enum Reason {
    ALLOWED,
    BAD_REQUEST,
    HOST_NOT_ALLOWED,
    PORT_NOT_ALLOWED,
    METHOD_NOT_ALLOWED,
    PATH_NOT_ALLOWED,
    ADDRESS_NOT_ALLOWED,
    CREDENTIAL_ENDPOINT_MISMATCH,
    SECRET_LEAK,
    PLAINTEXT_CREDENTIAL,
    METHOD_REFUSED,
    HOST_MISMATCH,
    HEADERS_TOO_LARGE,
    /** 408: the request head did not arrive within {@code limits.header_timeout} (an extension of SPEC.md). */
    HEADER_TIMEOUT,
    DNS_FAILURE,
    UPSTREAM_UNREACHABLE,
    UPSTREAM_TLS_ERROR,
    CREDENTIAL_UNAVAILABLE,
    OVERLOADED,
    UPSTREAM_TIMEOUT,
    /** 401: a state-changing admin call without the right admin token. */
    ADMIN_UNAUTHORIZED,
    /** 403: the kill switch was pulled; nothing leaves until a restart. */
    EGRESS_KILLED,
    /** 403: not allowed, but approvable through the approval inbox: the answer carries the approval's id. */
    APPROVAL_REQUIRED,
    /** 429: a request carrying a credential would pass one of that credential's {@code limits}. */
    CREDENTIAL_BUDGET_EXCEEDED,
    /** 403: a request signed in a way the proxy cannot re-sign (SigV4a, signature version 2, signed chunks it does not handle). */
    SIGV4_UNSUPPORTED,
    /** 403 (an extension of SPEC.md's list): a SigV4 signature that is not the sentinel key's over the request; never re-signed. */
    SIGV4_SIGNATURE_MISMATCH,
    /** 403: a GitHub REST or git request for a repository the job does not have (or a REST path outside the repository-free reads). */
    REPOSITORY_NOT_ALLOWED,
    /** 403: a git push (or a REST call) that would change a ref other than the job's branch; git prints the reason. */
    REF_NOT_ALLOWED,
    /** 403: a GitHub GraphQL mutation outside the job's repositories, branch or the allowed set. */
    GRAPHQL_NOT_ALLOWED;

    private final String code = name().toLowerCase(Locale.ROOT);

    /** The wire form, e.g. {@code host_not_allowed}. */
    public String code() {
        return code;
    }

    /**
     * The reason whose wire form is {@code code} (a body check names its reason so: the injector
     * does not know this type).
     *
     * @throws IllegalArgumentException when no reason has that code
     */
    public static Reason ofCode(String code) {
        return valueOf(code.toUpperCase(Locale.ROOT));
    }

    /** The reason of the same code as the allow-list's. */
    public static Reason of(Decision.Reason policy) {
        return switch (policy) {
            case ALLOWED -> ALLOWED;
            case HOST_NOT_ALLOWED -> HOST_NOT_ALLOWED;
            case PORT_NOT_ALLOWED -> PORT_NOT_ALLOWED;
            case METHOD_NOT_ALLOWED -> METHOD_NOT_ALLOWED;
            case PATH_NOT_ALLOWED -> PATH_NOT_ALLOWED;
        };
    }
}
