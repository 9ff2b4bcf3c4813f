package org.cyverse.mesa.egress.allowlist;

import java.util.List;

/**
 * A sandbox profile (P0..P4), as far as egress is concerned.
 *
 * @param name e.g. {@code P2}
 * @param title e.g. {@code Background}
 * @param egress the egress classes the profile permits, the default first
 */
public record Profile(String name, String title, List<String> egress) {
    public Profile {
        egress = List.copyOf(egress);
    }
}
