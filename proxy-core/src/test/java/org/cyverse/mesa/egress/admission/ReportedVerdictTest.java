package org.cyverse.mesa.egress.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.admission.AdmissionTest.Row;
import org.cyverse.mesa.egress.admission.Verdict.Disposition;
import org.cyverse.mesa.egress.admission.Verdict.Mode;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.Injector;
import org.cyverse.mesa.egress.injector.Secret;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The plug-in point of {@code enforcement: report}, which no config can reach yet: an
 * {@link Admission} whose {@link EnforcementPolicy} would report every refusal it may. A policy
 * refusal then lets the request go on, with the refusal it would have had; everything else is
 * refused as {@link AdmissionTest}'s rows say, each through the one place that asks the policy.
 */
class ReportedVerdictTest {

    /** The twin of each of AdmissionTest's admissions that runs without budgets or inbox, reporting all it may. */
    static Map<Admission, Admission> reporting;

    @BeforeAll
    static void load(@TempDir Path dir) throws IOException {
        AdmissionTest.load(dir);
        MesaConfig config = AdmissionTest.admission.config();
        Map<String, Secret> values = Map.of("api", Secret.of(AdmissionTest.API_SECRET), "api-audit", Secret.of("audit-REAL-1"),
                "git", Secret.of(AdmissionTest.GIT_SECRET), "legacy", Secret.of("legacy-REAL-2"));
        EnforcementPolicy reportAll = EnforcementPolicy.choosing(refusal -> Enforcement.REPORT);
        reporting = Map.of(
                AdmissionTest.admission, twin(config, values, true, RunningProxy.NONE, reportAll),
                AdmissionTest.withoutInterception, twin(config, values, false, RunningProxy.NONE, reportAll),
                AdmissionTest.killed, twin(config, values, true, new RunningProxy(() -> true, null, null), reportAll));
    }

    private static Admission twin(MesaConfig config, Map<String, Secret> values, boolean canIntercept, RunningProxy live,
            EnforcementPolicy enforcement) {
        return new Admission(config, config.addressGuard(List.of()), List.of(new Injector(config.credentials(), AdmissionTest.fixed(values))),
                canIntercept, live, enforcement);
    }

    static Stream<Row> rows() {
        return AdmissionTest.rows().filter(row -> reporting.containsKey(row.by()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachRowIsEnforcedUnlessItsPolicyRefusalIsReported(Row row) {
        Verdict enforced = row.by().decide(row.facts());
        Verdict verdict = reporting.get(row.by()).decide(row.facts());
        assertEquals(row.reason(), enforced.reason(), row.name());
        if (row.reason() == Reason.ALLOWED) {
            assertEquals(Disposition.ALLOWED, verdict.disposition(), row.name());
        } else if (!EnforcementPolicy.reportable(row.reason())) {
            assertEquals(Disposition.REFUSED, verdict.disposition(), row.name() + ": " + verdict);
            assertEquals(enforced.refusal(), verdict.refusal(), row.name());
            assertEquals(enforced.path(), verdict.path(), row.name());
        } else if (verdict.reported()) {
            assertTrue(verdict.allowed(), row.name());
            assertEquals(enforced.refusal(), verdict.refusal(), row.name() + ": the answer it would have had");
            assertEquals(verdict.mode() != Mode.TUNNEL, verdict.outgoing() != null, row.name() + ": a request goes on with what to send");
        } else {
            // Reported, then a later step that is always enforced refused it for good.
            assertEquals(Disposition.REFUSED, verdict.disposition(), row.name());
            assertFalse(EnforcementPolicy.reportable(verdict.reason()), row.name() + ": " + verdict);
        }
    }

    @Test
    void aHostOfNoRuleGoesOnWithTheRefusalItWouldHaveHad() {
        RequestFacts facts = AdmissionTest.get("http://nowhere.test/x?q=1");
        Verdict verdict = reporting.get(AdmissionTest.admission).decide(facts);
        assertEquals(Disposition.REPORTED, verdict.disposition());
        assertTrue(verdict.allowed() && verdict.reported());
        assertEquals(Reason.HOST_NOT_ALLOWED, verdict.reason());
        assertEquals(AdmissionTest.admission.decide(facts).refusal(), verdict.refusal());
        assertNotNull(verdict.outgoing(), "sent as if allowed");
        assertEquals("/x?q=1", verdict.outgoing().pathAndQuery());
        assertTrue(verdict.toString().contains("host_not_allowed (reported)"), verdict.toString());
    }

    @Test
    void aConnectOfNoRuleIsTunnelledAndReported() {
        Verdict verdict = reporting.get(AdmissionTest.admission).decide(RequestFacts.connect("nowhere.test:443"));
        assertEquals(Disposition.REPORTED, verdict.disposition());
        assertEquals(Reason.HOST_NOT_ALLOWED, verdict.reason());
        assertEquals(Mode.TUNNEL, verdict.mode());
        assertNull(verdict.outgoing());
    }

    /** Reporting the policy's refusal opens neither the address guard nor the credential checks after it. */
    @Test
    void theChecksAfterAReportedRefusalStillRefuse() {
        Admission admission = reporting.get(AdmissionTest.admission);
        Verdict metadata = admission.decide(AdmissionTest.get("http://0xa9fea9fe/latest"));
        assertEquals(Disposition.REFUSED, metadata.disposition());
        assertEquals(Reason.ADDRESS_NOT_ALLOWED, metadata.reason(), "host_not_allowed reported, then the guard: " + metadata);
        Verdict sentinel = admission.decide(AdmissionTest.get("http://new2.test/", "x-api-key", "sk-api-sentinel"));
        assertEquals(Reason.CREDENTIAL_ENDPOINT_MISMATCH, sentinel.reason());
        assertFalse(sentinel.allowed());
        Verdict leak = admission.decide(AdmissionTest.get("http://nowhere.test/keys/" + AdmissionTest.API_SECRET));
        assertEquals(Reason.SECRET_LEAK, leak.reason());
        assertFalse(leak.allowed());
        assertEquals("[redacted]", leak.path());
        assertFalse((leak + " " + leak.refusal()).contains(AdmissionTest.API_SECRET));
    }
}
