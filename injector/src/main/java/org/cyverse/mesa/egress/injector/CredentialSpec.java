package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.PathGlob;

/**
 * One {@code credentials:} entry of the config file: a secret and the only destinations it may
 * reach. Holds the secret's reference, never its value.
 *
 * @param name e.g. {@code anthropic}; appears in audit records and metric labels
 * @param hosts the only destinations this credential may reach
 * @param ports default {@code [443]}
 * @param methods optional further scope (uppercase); empty = any
 * @param paths optional further scope; empty = any
 * @param sentinel the placeholder the agent holds, or {@code null}
 * @param header the header set on matching requests, or {@code null}
 * @param format e.g. {@code "Bearer {secret}"} (the default)
 * @param secret where the value comes from
 * @param allowPlaintext whether injection may happen over plain http
 * @param bodySubstitution whether the sentinel is also replaced in request bodies (streaming),
 *     for APIs that carry keys in JSON bodies; off by default
 */
public record CredentialSpec(
        String name,
        List<HostPattern> hosts,
        Set<Integer> ports,
        Set<String> methods,
        List<PathGlob> paths,
        String sentinel,
        String header,
        String format,
        SecretRef secret,
        boolean allowPlaintext,
        boolean bodySubstitution) {

    public CredentialSpec {
        hosts = List.copyOf(hosts);
        ports = Set.copyOf(ports);
        methods = Set.copyOf(methods);
        paths = List.copyOf(paths);
    }

    /** Whether this credential's hosts and ports cover {@code destination} (methods and paths aside). */
    public boolean covers(org.cyverse.mesa.egress.allowlist.Destination destination) {
        return CredentialReach.covers(this, destination);
    }

    /** Whether a request lies within this credential's whole scope: hosts, ports, methods, paths. */
    public boolean inScope(org.cyverse.mesa.egress.allowlist.Destination destination, String method, String path) {
        return CredentialReach.miss(this, destination, method, path) == null;
    }
}
