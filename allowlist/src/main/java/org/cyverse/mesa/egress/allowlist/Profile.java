package org.cyverse.mesa.egress.allowlist;

import java.util.List;

/**
 * A sandbox profile (P0..P4), as far as egress is concerned.
 *
 * @param name e.g. {@code P2}
 * @param title e.g. {@code Background}
 * @param egress the egress classes the profile permits, the default first
 * @param autonomy the autonomy levels (A0 prompts, A1 allow-list plus approval inbox, A2 policy-only)
 */
public record Profile(String name, String title, List<String> egress, List<String> autonomy) {
    public Profile {
        egress = List.copyOf(egress);
        autonomy = List.copyOf(autonomy);
    }

    /** A profile that says nothing of autonomy. */
    public Profile(String name, String title, List<String> egress) {
        this(name, title, egress, List.of());
    }

    /** Whether the approval inbox (A1) applies: requests outside the allow-list may be approved. */
    public boolean approvable() {
        return autonomy.contains("A1");
    }
}
