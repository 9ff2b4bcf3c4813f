package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What to look for in one request's body: the needles (every value every credential holds, the
 * sentinels of the credentials the request is outside of, each in its {@link EncodedForms}) and
 * what each stands for. Immutable; shared by every request with the same needles, each of which
 * gets its own {@link BodyScanner}.
 */
public final class ScanPlan {

    /** Nothing to look for: bodies go out unscanned and unheld. */
    public static final ScanPlan EMPTY = new ScanPlan(List.of(), List.of());

    private final NeedleAutomaton automaton;
    private final List<Finding> findings;

    private ScanPlan(List<byte[]> needles, List<Finding> findings) {
        this.automaton = needles.isEmpty() ? null : new NeedleAutomaton(needles);
        this.findings = List.copyOf(findings);
    }

    /** Whether there is nothing to look for. */
    public boolean isEmpty() {
        return automaton == null;
    }

    /** A scanner for one body. */
    public BodyScanner newScanner() {
        return new BodyScanner(automaton, findings);
    }

    /** How many needles the plan has (for a person sizing a config). */
    public int needles() {
        return findings.size();
    }

    /** Collects needles; {@link #build} compiles them once. */
    public static final class Builder {
        private final List<byte[]> needles = new ArrayList<>();
        private final List<Finding> findings = new ArrayList<>();

        /** Looks for {@code value} as is, in base64, hex and UTF-16, reported as {@code credential}'s {@code kind}. */
        public Builder add(String credential, Finding.Kind kind, String value) {
            if (value == null || value.isEmpty()) {
                return this;
            }
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            needles.add(bytes);
            findings.add(new Finding(credential, kind, "as is"));
            for (byte[] fragment : EncodedForms.base64Fragments(bytes)) {
                needles.add(fragment);
                findings.add(new Finding(credential, kind, "base64"));
            }
            for (byte[] hex : EncodedForms.hex(bytes)) {
                needles.add(hex);
                findings.add(new Finding(credential, kind, "hex"));
            }
            for (byte[] utf16 : EncodedForms.utf16(value)) {
                needles.add(utf16);
                findings.add(new Finding(credential, kind, "UTF-16"));
            }
            return this;
        }

        public ScanPlan build() {
            return needles.isEmpty() ? EMPTY : new ScanPlan(needles, findings);
        }
    }
}
