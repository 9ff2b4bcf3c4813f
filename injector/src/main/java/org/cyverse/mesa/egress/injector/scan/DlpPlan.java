package org.cyverse.mesa.egress.injector.scan;

import java.util.List;
import java.util.Set;

/**
 * What {@code dlp} looks for in one request: the rules, whether a hit refuses the request or is only
 * recorded, and the values that never count (the sentinels). Immutable.
 *
 * @param block whether a hit refuses the request (403 {@code secret_leak}); otherwise it is audited only
 */
public record DlpPlan(List<DlpRule> rules, boolean block, Set<String> ignored) {

    public DlpPlan {
        rules = List.copyOf(rules);
        ignored = Set.copyOf(ignored);
    }

    /** A scanner for one body. */
    public DlpScanner newScanner() {
        return new DlpScanner(rules, ignored);
    }
}
