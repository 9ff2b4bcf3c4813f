package org.cyverse.mesa.egress.approval;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.Rule;

/**
 * What an approval was asked for, or grants: one host (canonical, exact), its ports, and
 * optionally methods. A grant may only be the scope asked for or narrower ({@link #within}): the
 * same host, a subset of its ports, and methods only where the request asked for any.
 *
 * @param host the canonical host name or address literal
 * @param ports the ports; never empty
 * @param methods uppercase methods; empty means any
 */
public record ApprovalScope(String host, Set<Integer> ports, Set<String> methods) {

    public ApprovalScope {
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("a scope names at least one port");
        }
        host = host.toLowerCase(Locale.ROOT);
        ports = Set.copyOf(new TreeSet<>(ports));
        methods = Set.copyOf(new TreeSet<>(methods));
    }

    /** The scope of one request: its host and port, any method. */
    public static ApprovalScope of(String host, int port) {
        return new ApprovalScope(host, Set.of(port), Set.of());
    }

    /**
     * Why this scope is not {@code asked} or narrower, or {@code null} when it is. A wildcard or
     * another host, another port, or methods where the request asked for specific ones widen it.
     */
    String widening(ApprovalScope asked) {
        if (!host.equals(asked.host)) {
            return "scope.host " + host + " is not the host asked for (" + asked.host + "); an approval may only narrow the request";
        }
        if (!asked.ports.containsAll(ports)) {
            return "scope.ports " + ports + " are not within the ports asked for " + asked.ports;
        }
        if (!asked.methods.isEmpty() && (methods.isEmpty() || !asked.methods.containsAll(methods))) {
            return "scope.methods must be within " + asked.methods;
        }
        return null;
    }

    /** The allow rule this scope grants, named for the audit record ({@code approval apr_...}). */
    Rule rule(String approvalId) {
        return new Rule("approval " + approvalId, HostPattern.parse(host), ports, methods, List.of());
    }

    /** For messages: {@code pypi.example.org:443}, {@code host:80,443 (GET, HEAD)}. */
    public String describe() {
        StringBuilder s = new StringBuilder(host.contains(":") ? "[" + host + "]" : host).append(':');
        s.append(String.join(",", ports.stream().sorted().map(String::valueOf).toList()));
        if (!methods.isEmpty()) {
            s.append(" (").append(String.join(", ", methods.stream().sorted().toList())).append(')');
        }
        return s.toString();
    }
}
