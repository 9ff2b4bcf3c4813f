package org.cyverse.mesa.egress.allowlist;

import java.util.List;
import java.util.Set;

/**
 * One allow or deny entry.
 *
 * @param name how audit records name it, e.g. {@code "class N1"} or {@code "allow[2]"}
 * @param host which hosts it covers
 * @param ports which ports; empty means every port
 * @param methods which methods (uppercase); empty means every method
 * @param paths which paths; empty means every path
 */
public record Rule(String name, HostPattern host, Set<Integer> ports, Set<String> methods, List<PathGlob> paths) {

    public Rule {
        ports = Set.copyOf(ports);
        methods = Set.copyOf(methods);
        paths = List.copyOf(paths);
    }

    /** Whether the rule restricts what only an inspected request shows. */
    public boolean hasL7() {
        return !methods.isEmpty() || !paths.isEmpty();
    }
}
