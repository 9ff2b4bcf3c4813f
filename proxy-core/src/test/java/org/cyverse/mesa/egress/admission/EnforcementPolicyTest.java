package org.cyverse.mesa.egress.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which refusals {@code enforcement: report} may let through: one row per reason, every reason
 * with its row. SPEC.md: the address guard, {@code secret_leak}, {@code credential_endpoint_mismatch}
 * and {@code egress_killed} are always enforced; so is everything that is not a policy choice.
 */
class EnforcementPolicyTest {

    /** Reason to whether its refusal may be only reported. */
    static final Map<Reason, Boolean> REPORTABLE = Map.ofEntries(
            // The allow-list's rules, and the inbox asking instead of refusing an unknown host.
            Map.entry(Reason.HOST_NOT_ALLOWED, true),
            Map.entry(Reason.PORT_NOT_ALLOWED, true),
            Map.entry(Reason.METHOD_NOT_ALLOWED, true),
            Map.entry(Reason.PATH_NOT_ALLOWED, true),
            Map.entry(Reason.APPROVAL_REQUIRED, true),
            // SPEC.md's always enforced.
            Map.entry(Reason.ADDRESS_NOT_ALLOWED, false),
            Map.entry(Reason.SECRET_LEAK, false),
            Map.entry(Reason.CREDENTIAL_ENDPOINT_MISMATCH, false),
            Map.entry(Reason.EGRESS_KILLED, false),
            // A credential's protections.
            Map.entry(Reason.PLAINTEXT_CREDENTIAL, false),
            Map.entry(Reason.REPOSITORY_NOT_ALLOWED, false),
            Map.entry(Reason.REF_NOT_ALLOWED, false),
            Map.entry(Reason.GRAPHQL_NOT_ALLOWED, false),
            Map.entry(Reason.CREDENTIAL_BUDGET_EXCEEDED, false),
            Map.entry(Reason.CREDENTIAL_UNAVAILABLE, false),
            Map.entry(Reason.SIGV4_UNSUPPORTED, false),
            Map.entry(Reason.SIGV4_SIGNATURE_MISMATCH, false),
            // Safety of inspection.
            Map.entry(Reason.METHOD_REFUSED, false),
            Map.entry(Reason.HOST_MISMATCH, false),
            // Framing.
            Map.entry(Reason.BAD_REQUEST, false),
            Map.entry(Reason.HEADERS_TOO_LARGE, false),
            Map.entry(Reason.HEADER_TIMEOUT, false),
            // Failures, and the admin port.
            Map.entry(Reason.DNS_FAILURE, false),
            Map.entry(Reason.UPSTREAM_UNREACHABLE, false),
            Map.entry(Reason.UPSTREAM_TLS_ERROR, false),
            Map.entry(Reason.UPSTREAM_TIMEOUT, false),
            Map.entry(Reason.OVERLOADED, false),
            Map.entry(Reason.ADMIN_UNAUTHORIZED, false));

    static Refusal refusal(Reason reason, String rule) {
        return new Refusal(Refusals.status(reason), reason, "refused", "h.test", "a hint", rule, 0, Map.of());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Reason.class, mode = EnumSource.Mode.EXCLUDE, names = "ALLOWED")
    void eachReasonIsReportableOrAlwaysEnforced(Reason reason) {
        assertTrue(REPORTABLE.containsKey(reason), reason + " has no row: decide whether enforcement: report may let it through");
        boolean reportable = REPORTABLE.get(reason);
        Refusal refusal = refusal(reason, "allow[0]: h.test");
        assertEquals(reportable, EnforcementPolicy.reportable(reason), reason.code());
        assertEquals(Enforcement.ENFORCE, EnforcementPolicy.ENFORCE_ALL.of(refusal), reason.code() + ": today every refusal is enforced");
        assertEquals(reportable ? Enforcement.REPORT : Enforcement.ENFORCE, EnforcementPolicy.choosing(r -> Enforcement.REPORT).of(refusal),
                reason.code() + " under a policy that would report everything");
        assertEquals(Enforcement.ENFORCE, EnforcementPolicy.choosing(r -> Enforcement.ENFORCE).of(refusal), reason.code());
    }

    @Test
    void specsAlwaysEnforcedReasonsNeverReachTheChoice() {
        List<Reason> asked = new ArrayList<>();
        EnforcementPolicy policy = EnforcementPolicy.choosing(r -> {
            asked.add(r.reason());
            return Enforcement.REPORT;
        });
        for (Reason reason : Set.of(Reason.ADDRESS_NOT_ALLOWED, Reason.SECRET_LEAK, Reason.CREDENTIAL_ENDPOINT_MISMATCH,
                Reason.EGRESS_KILLED, Reason.BAD_REQUEST)) {
            assertEquals(Enforcement.ENFORCE, policy.of(refusal(reason, null)), reason.code());
        }
        assertEquals(List.of(), asked);
        assertEquals(Enforcement.REPORT, policy.of(refusal(Reason.PATH_NOT_ALLOWED, null)));
        assertEquals(List.of(Reason.PATH_NOT_ALLOWED), asked);
    }

    /** A per-rule choice (enforcement: report on one allow entry) reads the rule the refusal names. */
    @Test
    void theChoiceSeesTheRuleThatRefused() {
        EnforcementPolicy perRule = EnforcementPolicy.choosing(r -> "allow[2]: ro.test".equals(r.rule()) ? Enforcement.REPORT : Enforcement.ENFORCE);
        Refusal byTriedRule = Refusals.policy(new Decision(Decision.Outcome.DENY, Decision.Reason.PATH_NOT_ALLOWED, "allow[2]: ro.test"),
                "ro.test", 443, "P2");
        Refusal byOtherRule = Refusals.policy(new Decision(Decision.Outcome.DENY, Decision.Reason.PATH_NOT_ALLOWED, "allow[3]: rw.test"),
                "rw.test", 443, "P2");
        assertEquals(Enforcement.REPORT, perRule.of(byTriedRule));
        assertEquals(Enforcement.ENFORCE, perRule.of(byOtherRule));
    }

    @Test
    void allowedIsNoRefusal() {
        assertThrows(IllegalArgumentException.class, () -> EnforcementPolicy.reportable(Reason.ALLOWED));
        assertEquals(EnumSet.complementOf(EnumSet.of(Reason.ALLOWED)), EnumSet.copyOf(REPORTABLE.keySet()), "one row per refusal reason");
    }
}
