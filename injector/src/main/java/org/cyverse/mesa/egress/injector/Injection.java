package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Map;

/**
 * What {@link Injector#apply} decided (SPEC.md decision step 5).
 *
 * @param outcome what happens to the request
 * @param credential the credential concerned (injected, mismatched, leaked, unavailable), or {@code null}
 * @param pathAndQuery the origin-form to send (sentinels replaced), when not refused
 * @param headers the headers to send (sentinels replaced, the credential's header set), when not refused
 * @param bodySubstitution when the request body must be rewritten (a credential opted in):
 *     sentinel bytes to secret bytes; empty otherwise
 * @param applied when injected: every credential applied, in config order, with what it did
 * @param detail for the refusal's message and the log; never contains a secret value
 * @param place where a refused request carried the sentinel or secret, as the audit record's
 *     {@code place} names it ({@code header}, {@code query}, {@code path}, {@code body}, {@code host},
 *     {@code method}); {@code null} otherwise
 * @param use what the credential's kind made of the request beyond its head (a body check, how a refusal reads, an
 *     audit part), {@link RequestUse#NONE} when nothing
 */
public record Injection(Outcome outcome, String credential, String pathAndQuery, List<Map.Entry<String, String>> headers,
        Map<String, Secret> bodySubstitution, List<Applied> applied, String detail, String place, RequestUse use) {

    /** An injection with nothing beyond the head. */
    public Injection(Outcome outcome, String credential, String pathAndQuery, List<Map.Entry<String, String>> headers,
            Map<String, Secret> bodySubstitution, List<Applied> applied, String detail, String place) {
        this(outcome, credential, pathAndQuery, headers, bodySubstitution, applied, detail, place, RequestUse.NONE);
    }

    /**
     * One credential put on a request.
     *
     * @param credential its name
     * @param actions what it did, for a person ({@code "sentinel replaced in header authorization"},
     *     {@code "header x-api-key set"}); never a value
     */
    public record Applied(String credential, List<String> actions) {
        public Applied {
            actions = List.copyOf(actions);
        }
    }

    /** The outcomes; each is counted as {@code mesa_egress_injections_total{outcome}}. */
    public enum Outcome {
        /** No credential applies; the request goes out as it came. */
        UNCHANGED("none"),
        /** A credential was put on the request. */
        INJECTED("injected"),
        /** A sentinel headed outside its credential's scope: 403 credential_endpoint_mismatch. */
        MISMATCH("mismatch"),
        /** A real secret value in the client's request: 403 secret_leak. */
        SECRET_LEAK("leak"),
        /** A sentinel over plain http to a credential that does not allow it: 403 plaintext_credential. */
        PLAINTEXT("plaintext"),
        /** The credential applies but has no valid value now: 503 credential_unavailable. */
        UNAVAILABLE("unavailable"),
        /** A signature the credential's kind cannot re-sign (SigV4a, signature version 2, ...): 403 sigv4_unsupported. */
        UNSUPPORTED("unsupported"),
        /** A signature that is not the sentinel key's over this request: 403 sigv4_signature_mismatch. */
        BAD_SIGNATURE("bad_signature"),
        /** A signature whose own syntax is broken (parts missing or named twice): 400 bad_request. */
        MALFORMED("malformed"),
        /** A GitHub REST or git request for a repository the job does not have: 403 repository_not_allowed. */
        REPOSITORY_NOT_ALLOWED("repository_not_allowed"),
        /** A push (or a REST call) that would change a ref other than the job's branch: 403 ref_not_allowed. */
        REF_NOT_ALLOWED("ref_not_allowed");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        /** The metric label value. */
        public String label() {
            return label;
        }
    }

    public Injection {
        headers = headers == null ? null : List.copyOf(headers);
        bodySubstitution = bodySubstitution == null ? Map.of() : Map.copyOf(bodySubstitution);
        applied = applied == null ? List.of() : List.copyOf(applied);
        use = use == null ? RequestUse.NONE : use;
    }

    public boolean refused() {
        return outcome != Outcome.UNCHANGED && outcome != Outcome.INJECTED;
    }

    /**
     * Without the headers and the path: once injected they hold the real secret, and a record's
     * generated {@code toString()} would print them into whatever log line it ends up in.
     */
    @Override
    public String toString() {
        return "Injection[outcome=" + outcome + ", credential=" + credential + ", applied=" + applied + ", detail=" + detail
                + ", place=" + place + (use == RequestUse.NONE ? "" : ", use=" + use) + "]";
    }
}
