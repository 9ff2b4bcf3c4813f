package org.cyverse.mesa.egress.allowlist;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An egress class (N0..N3).
 *
 * @param name e.g. {@code N1}
 * @param title e.g. {@code trusted}
 * @param anyPublicHost N0: every host, the address guard still applies
 * @param hosts host patterns the class allows
 * @param ports ports for those hosts
 */
public record EgressClass(String name, String title, boolean anyPublicHost, List<HostPattern> hosts, Set<Integer> ports) {
    public EgressClass {
        hosts = List.copyOf(hosts);
        ports = Set.copyOf(ports);
    }

    /**
     * The rules this class contributes to a {@link Policy}'s allow list, named {@code "class N1"}:
     * one per host pattern (a {@link Rule} has one host), so a decision reads
     * {@code "class N1: github.com"}; for N0 one rule for {@link HostPattern#any()}. No method or
     * path restrictions, so a class never forces interception by itself.
     */
    public List<Rule> rules() {
        String ruleName = "class " + name;
        if (anyPublicHost) {
            return List.of(new Rule(ruleName, HostPattern.any(), ports, Set.of(), List.of()));
        }
        List<Rule> rules = new ArrayList<>(hosts.size());
        for (HostPattern host : hosts) {
            rules.add(new Rule(ruleName, host, ports, Set.of(), List.of()));
        }
        return List.copyOf(rules);
    }
}
