package org.cyverse.mesa.egress.admission;

/**
 * What becomes of a refusal the admission reached (SPEC.md, third wave: {@code enforcement:
 * enforce | report}), as smokescreen keeps its ACL's {@code Report} policy apart from the decision.
 * {@link EnforcementPolicy} answers it; {@link VerdictDraft} acts on it.
 */
enum Enforcement {
    /** The refusal is the answer: the request goes no further. */
    ENFORCE,
    /** The request goes on as if allowed, and its verdict keeps the refusal it would have had, for the audit record. */
    REPORT
}
