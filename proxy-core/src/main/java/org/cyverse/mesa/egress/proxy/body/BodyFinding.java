package org.cyverse.mesa.egress.proxy.body;

import org.cyverse.mesa.egress.admission.TrailerCheck;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;

/**
 * What stopped a request body in the {@link RequestBodyGate}: one of a closed set, each with the
 * facts its answer and its record need ({@link BodyRefusals} answers each).
 */
public sealed interface BodyFinding {

    /** A real secret, or a sentinel outside its credential's scope, found by the scan. */
    record Leak(BodyScanner.Hit hit) implements BodyFinding {}

    /** A body the scan cannot read (a coding it cannot undo, one that inflates past the bound): why. */
    record Unscannable(String detail) implements BodyFinding {}

    /** A {@code dlp} rule that matched in block mode. */
    record Dlp(String rule) implements BodyFinding {}

    /** No room to hold the body: the bytes held across requests would pass {@code limits.scan_hold_total_bytes}. */
    record Overloaded() implements BodyFinding {}

    /** Trailer fields that step 5 refused. */
    record Trailers(TrailerCheck.Outcome outcome) implements BodyFinding {}

    /** A check that plugs into the gate refused (a credential kind's: a push's branch rule, a chunk signature). */
    record Checked(BodyCheck.Refusal refusal) implements BodyFinding {}
}
