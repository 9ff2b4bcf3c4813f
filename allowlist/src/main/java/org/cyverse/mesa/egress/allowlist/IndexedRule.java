package org.cyverse.mesa.egress.allowlist;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** A {@link Rule} compiled for {@link Policy}: its place in its list, and cheap port checks. */
final class IndexedRule {

    /** Position in the deny or allow list; when several rules match, the first one is named. */
    final int order;
    final Rule rule;
    /** What {@link Decision#rule()} reports, e.g. {@code "allow[0]: *.example.org"}. */
    final String description;
    private final int[] ports;
    private final Set<String> methods;

    IndexedRule(int order, Rule rule) {
        this.order = order;
        this.rule = rule;
        this.description = rule.name() + ": " + rule.host();
        this.ports = rule.ports().stream().mapToInt(Integer::intValue).sorted().toArray();
        this.methods = rule.methods().stream().map(m -> m.toUpperCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }

    boolean portAllowed(int port) {
        return ports.length == 0 || Arrays.binarySearch(ports, port) >= 0;
    }

    /** @param method already upper-cased */
    boolean methodAllowed(String method) {
        return methods.isEmpty() || methods.contains(method);
    }

    /**
     * @param path normalized segments, or null when the path is ambiguous
     * @param ambiguousMatches what an ambiguous path counts as: a deny rule must treat it as a
     *     match (or {@code /%2e%2e/admin} walks past it), an allow rule as a miss
     */
    boolean pathAllowed(List<String> path, boolean ambiguousMatches) {
        List<PathGlob> globs = rule.paths();
        if (globs.isEmpty()) {
            return true;
        }
        if (path == null) {
            return ambiguousMatches;
        }
        for (PathGlob glob : globs) {
            if (glob.matchesSegments(path)) {
                return true;
            }
        }
        return false;
    }

    static IndexedRule first(IndexedRule current, IndexedRule candidate) {
        return current == null || candidate.order < current.order ? candidate : current;
    }
}
