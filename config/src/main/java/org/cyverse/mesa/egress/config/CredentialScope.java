package org.cyverse.mesa.egress.config;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.allowlist.Cidr;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.allowlist.Policy;
import org.cyverse.mesa.egress.allowlist.Rule;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.config.MapReader.Text;

/**
 * SPEC.md: "a credential whose hosts the profile does not allow" is a config error. A credential
 * scoped wider than the egress policy is a mistake either way: its hosts are unreachable, or the
 * operator believes the sandbox reaches more than it does.
 *
 * <ul>
 *   <li>An exact name or address must be allowed by the {@link Policy} (class rules plus
 *       {@code allow}, after {@code deny}) on at least one of the credential's ports; a decision
 *       that needs inspection counts, since credentials are injected only into inspected
 *       requests anyway.
 *   <li>{@code *.suffix} must be covered by a {@code *.suffix} rule of the same or a broader
 *       suffix on one of its ports: no finite set of exact names covers a wildcard.
 *   <li>A CIDR must lie inside a CIDR rule on one of its ports.
 * </ul>
 * Under N0 (any public host) every pattern is covered on the class's ports.
 */
final class CredentialScope {

    private static final String DENIED = "is refused by ";

    private CredentialScope() {}

    /**
     * @param allow the policy's allow list: the class's rules, then the {@code allow} entries
     * @param context e.g. {@code profile P3, egress class N2 (CyVerse-only)}, for messages
     * @param hint what the operator can do about a refused host
     */
    static void check(CredentialReader.Entry entry, EgressClass egress, List<Rule> allow, Policy policy,
            String context, String hint, Problems problems) {
        Set<Integer> ports = entry.spec().ports();
        for (int i = 0; i < entry.hosts().size(); i++) {
            Text host = entry.hosts().get(i);
            String pattern = entry.spec().hosts().get(i).toString();
            String refusal = refusal(pattern, ports, egress, allow, policy);
            if (refusal != null) {
                String advice = refusal.startsWith(DENIED)
                        ? "deny is checked before allow: narrow the deny entry or remove the host from the credential" : hint;
                problems.add(host.line(), entry.key() + ".hosts", pattern + " " + refusal + " in " + context + "; " + advice);
            }
        }
    }

    /** Why the pattern is not reachable, or {@code null} when it is. */
    private static String refusal(String pattern, Set<Integer> ports, EgressClass egress, List<Rule> allow, Policy policy) {
        String portText = (ports.size() == 1 ? "port " : "ports ")
                + new TreeSet<>(ports).stream().map(String::valueOf).collect(Collectors.joining(", "));
        if (pattern.startsWith("*.") || pattern.contains("/")) {
            if (egress.anyPublicHost() && intersects(egress.ports(), ports)) {
                return null;
            }
            for (Rule rule : allow) {
                if (intersects(rule.ports(), ports) && covers(rule.host().toString(), pattern)) {
                    return null;
                }
            }
            return "is not covered by a " + (pattern.contains("/") ? "CIDR" : "*.suffix") + " rule on " + portText;
        }
        Decision last = null;
        for (int port : new TreeSet<>(ports)) {
            try {
                Decision decision = policy.decide(Target.tunnel(Destination.parse(pattern, port)));
                if (decision.outcome() != Decision.Outcome.DENY) {
                    return null;
                }
                last = decision;
            } catch (InvalidDestinationException e) {
                return "cannot be checked: " + e.getMessage();
            }
        }
        if (last != null && last.rule() != null && last.rule().startsWith("deny")) {
            return DENIED + last.rule();
        }
        if (last != null && last.reason() == Decision.Reason.PORT_NOT_ALLOWED) {
            return "is allowed, but not on " + portText + " (" + last.rule() + ")";
        }
        return "is not allowed on " + portText;
    }

    /** An empty port set in a rule means every port. */
    private static boolean intersects(Set<Integer> rulePorts, Set<Integer> ports) {
        return rulePorts.isEmpty() || ports.stream().anyMatch(rulePorts::contains);
    }

    /** Whether rule host {@code outer} covers every host of {@code inner} (both canonical text). */
    static boolean covers(String outer, String inner) {
        if (inner.startsWith("*.")) {
            if (!outer.startsWith("*.")) {
                return false;
            }
            String suffix = outer.substring(2);
            String wanted = inner.substring(2);
            return wanted.equals(suffix) || wanted.endsWith("." + suffix);
        }
        if (!outer.contains("/")) {
            return false;
        }
        Cidr outerCidr = Cidr.parse(outer);
        int slash = inner.indexOf('/');
        try {
            byte[] network = Destination.parse(inner.substring(0, slash), 1).addressBytes();
            return prefix(outer) <= prefix(inner) && outerCidr.contains(network);
        } catch (InvalidDestinationException e) {
            return false;
        }
    }

    private static int prefix(String cidr) {
        return Integer.parseInt(cidr.substring(cidr.indexOf('/') + 1));
    }
}
