package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.PathGlob;
import org.cyverse.mesa.egress.injector.budget.CredentialLimits;

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
 * @param mint how the value is minted ({@code mint:}), or {@code null} when it is read from {@code secret}
 * @param limits the proxy's own limits on requests carrying this credential ({@code limits:}); {@link CredentialLimits#NONE} by default
 * @param sigv4 for an {@code aws_sigv4} credential (requests re-signed, {@code secret} is the real secret access key and
 *     {@code sentinel} the sentinel access key id), or {@code null}
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
        org.cyverse.mesa.egress.injector.mint.MintSpec mint,
        CredentialLimits limits,
        org.cyverse.mesa.egress.injector.sigv4.SigV4Keys sigv4) {

    /** A credential that is not {@code aws_sigv4}. */
    public CredentialSpec(String name, List<HostPattern> hosts, Set<Integer> ports, Set<String> methods, List<PathGlob> paths,
            String sentinel, String header, String format, SecretRef secret, boolean allowPlaintext, boolean bodySubstitution,
            org.cyverse.mesa.egress.injector.mint.MintSpec mint, CredentialLimits limits) {
        this(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext, bodySubstitution, mint, limits, null);
    }

    /** A credential read from {@code secret}. */
    public CredentialSpec(String name, List<HostPattern> hosts, Set<Integer> ports, Set<String> methods, List<PathGlob> paths,
            String sentinel, String header, String format, SecretRef secret, boolean allowPlaintext, boolean bodySubstitution) {
        this(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext, bodySubstitution, null);
    }

    /** A credential without {@code limits:}. */
    public CredentialSpec(String name, List<HostPattern> hosts, Set<Integer> ports, Set<String> methods, List<PathGlob> paths,
            String sentinel, String header, String format, SecretRef secret, boolean allowPlaintext, boolean bodySubstitution,
            org.cyverse.mesa.egress.injector.mint.MintSpec mint) {
        this(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext, bodySubstitution, mint,
                CredentialLimits.NONE);
    }

    public CredentialSpec {
        if ((secret == null) == (mint == null)) {
            throw new IllegalArgumentException("credential " + name + " needs exactly one of secret and mint");
        }
        limits = limits == null ? CredentialLimits.NONE : limits;
        hosts = List.copyOf(hosts);
        ports = Set.copyOf(ports);
        methods = Set.copyOf(methods);
        paths = List.copyOf(paths);
    }

    /** Every secret reference this credential reads: its {@code secret} and its {@link #parts}, or what its minter needs. */
    public List<SecretRef> needs() {
        if (mint != null) {
            return mint.needs();
        }
        List<SecretRef> refs = new java.util.ArrayList<>();
        refs.add(secret);
        refs.addAll(parts().values());
        return List.copyOf(refs);
    }

    /**
     * The values fetched together with {@code secret} and valid only with it ({@link SecretLease#parts}), by part
     * name: an {@code aws_sigv4} credential's fetched access key id and session token; empty for any other.
     */
    public java.util.Map<String, SecretRef> parts() {
        return sigv4 == null ? java.util.Map.of() : sigv4.parts();
    }

    /** This credential with other {@code limits}: the same values, hosts and scope. */
    public CredentialSpec withLimits(CredentialLimits changed) {
        return new CredentialSpec(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext, bodySubstitution,
                mint, changed, sigv4);
    }

    /** For {@code check}: where the value comes from (a reference or how it is minted, never a value). */
    public String source() {
        if (sigv4 != null) {
            return "aws_sigv4: requests signed with sentinel key id " + sigv4.sentinelAccessKeyId() + " re-signed as "
                    + sigv4.describeKeyId() + " (secret access key: " + secret
                    + (sigv4.sessionToken() != null ? "; session token: " + sigv4.sessionToken() : "") + ")";
        }
        return mint != null ? "minted: " + mint.describe() : "secret: " + secret;
    }

    /**
     * Whether {@link Injector} puts this credential on requests (replacing its sentinel, setting its header);
     * {@code aws_sigv4} and {@code github_app} credentials have steps of their own.
     */
    public boolean injectedByInjector() {
        return sigv4 == null && !(mint instanceof org.cyverse.mesa.egress.injector.mint.MintSpec.GitHubApp);
    }

    /** Whether the proxy mints this credential's values (rather than reading them from a source). */
    public boolean minted() {
        return mint != null;
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
