package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;

/**
 * One kind of credential handling in SPEC.md decision step 5, as the admission runs it: given the
 * request as it would go out, refuse it or rewrite it, and say which credentials it applied and
 * how. {@link Injector} is the kind for header, Basic, query and path credentials; minted and
 * re-signing kinds implement this too, and the admission lists what each applied.
 */
public interface CredentialStep {

    /** Decides and rewrites one request. Pure apart from reading current values; thread-safe. */
    Injection apply(OutgoingRequest request);

    /**
     * What to look for in this request's body before any of it leaves (SPEC.md step 5 for
     * bodies): the values this kind holds, and the sentinels of its credentials that do not cover
     * the request. Called with the request as the client sent it. Nothing by default.
     */
    default ScanPlan bodyScan(OutgoingRequest request) {
        return ScanPlan.EMPTY;
    }

    /**
     * Step 5 for a chunked request's trailer fields, as for header fields: refuse the request,
     * or give the fields to send. Called with the request head as the client sent it. Nothing is
     * found by default.
     */
    default Injection trailers(OutgoingRequest request, List<Map.Entry<String, String>> fields) {
        return new Injection(Injection.Outcome.UNCHANGED, null, request.pathAndQuery(), fields, Map.of(), List.of(),
                "no credential applies", null);
    }

    /** {@code text} with every secret value this kind holds replaced by its stand-in (for answers). */
    default String scrub(String text) {
        return text;
    }

    /** {@code [redacted:NAME]} when {@code field} holds a value of this kind's credential NAME, else {@code field} (audit records). */
    default String redactField(String field) {
        return field;
    }
}
