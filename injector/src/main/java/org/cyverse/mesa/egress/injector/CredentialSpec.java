package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.Destination;
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
 * @param secret where the value comes from, or {@code null} for a minted credential
 * @param allowPlaintext whether injection may happen over plain http
 * @param bodySubstitution whether the sentinel is also replaced in request bodies (streaming),
 *     for APIs that carry keys in JSON bodies; off by default
 * @param limits the proxy's own limits on requests carrying this credential ({@code limits:}); {@link CredentialLimits#NONE} by default
 * @param kind the block of the credential's {@link CredentialKind} ({@code github_app:}, {@code aws_sigv4:}, {@code mint:}),
 *     or {@code null} for a plain secret put on requests by {@link Injector}
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
        boolean bodySubstitution,
        KindSpec kind,
        CredentialLimits limits) {

    /** A credential read from {@code secret}. */
    public CredentialSpec(String name, List<HostPattern> hosts, Set<Integer> ports, Set<String> methods, List<PathGlob> paths,
            String sentinel, String header, String format, SecretRef secret, boolean allowPlaintext, boolean bodySubstitution) {
        this(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext, bodySubstitution, null);
    }

    /** A credential without {@code limits:}. */
    public CredentialSpec(String name, List<HostPattern> hosts, Set<Integer> ports, Set<String> methods, List<PathGlob> paths,
            String sentinel, String header, String format, SecretRef secret, boolean allowPlaintext, boolean bodySubstitution,
            KindSpec kind) {
        this(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext, bodySubstitution, kind,
                CredentialLimits.NONE);
    }

    public CredentialSpec {
        if ((secret == null) != (kind != null && kind.minted())) {
            throw new IllegalArgumentException("credential " + name + " needs exactly one of secret and a minting kind");
        }
        limits = limits == null ? CredentialLimits.NONE : limits;
        hosts = List.copyOf(hosts);
        ports = Set.copyOf(ports);
        methods = Set.copyOf(methods);
        paths = List.copyOf(paths);
    }

    /** Every secret reference this credential reads: its {@code secret} and its {@link #parts}, or what its minter needs. */
    public List<SecretRef> needs() {
        if (minted()) {
            return kind.needs();
        }
        List<SecretRef> refs = new ArrayList<>();
        refs.add(secret);
        refs.addAll(parts().values());
        return List.copyOf(refs);
    }

    /**
     * The values fetched together with {@code secret} and valid only with it ({@link SecretLease#parts}), by part
     * name, as its kind names them (an {@code aws_sigv4} credential's access key id and session token); empty for most.
     */
    public Map<String, SecretRef> parts() {
        return kind == null ? Map.of() : kind.parts();
    }

    /** This credential with other {@code limits}: the same values, hosts and scope. */
    public CredentialSpec withLimits(CredentialLimits changed) {
        return new CredentialSpec(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext, bodySubstitution,
                kind, changed);
    }

    /** For {@code check}: where the value comes from (a reference or how it is minted, never a value). */
    public String source() {
        return kind != null ? kind.describe(this) : "secret: " + secret;
    }

    /** Whether {@link Injector} puts this credential on requests (replacing its sentinel, setting its header), not a step of its kind. */
    public boolean injectedByInjector() {
        return kind == null || !kind.ownStep();
    }

    /** Whether the proxy mints this credential's values (rather than reading them from a source). */
    public boolean minted() {
        return kind != null && kind.minted();
    }

    /** {@link #kind} as {@code type} when it is one, else {@code null}: how a kind's own code finds its credentials. */
    public <T extends KindSpec> T kind(Class<T> type) {
        return type.isInstance(kind) ? type.cast(kind) : null;
    }

    /** Whether this credential's hosts and ports cover {@code destination} (methods and paths aside). */
    public boolean covers(Destination destination) {
        return CredentialReach.covers(this, destination);
    }

    /** Whether a request lies within this credential's whole scope: hosts, ports, methods, paths. */
    public boolean inScope(Destination destination, String method, String path) {
        return CredentialReach.miss(this, destination, method, path) == null;
    }
}
