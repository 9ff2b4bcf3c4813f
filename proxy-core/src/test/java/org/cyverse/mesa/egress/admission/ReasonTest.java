package org.cyverse.mesa.egress.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.cyverse.mesa.egress.allowlist.Decision;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The allow-list's five reasons reach the client, the audit record and the metrics under the same code as before. */
class ReasonTest {

    @ParameterizedTest
    @EnumSource(Decision.Reason.class)
    void eachPolicyReasonMapsToTheReasonOfItsCode(Decision.Reason policy) {
        Reason reason = Reason.of(policy);
        assertEquals(policy.code(), reason.code());
        assertEquals(policy.name(), reason.name());
    }
}
