package org.cyverse.mesa.egress.allowlist;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.cyverse.mesa.egress.allowlist.Decision.Reason;

/**
 * A profile's allow-list, compiled for lookups whose cost does not grow with the number of
 * rules: exact names and suffixes are hashed, CIDRs bucketed by prefix length.
 *
 * <p>Order (SPEC.md step 3): the deny list first, then the allow list, each including port, then
 * method and path where the rule has them. Immutable and thread-safe.
 */
public final class Policy {

    private final String profile;
    private final RuleIndex deny;
    private final RuleIndex allow;
    private final List<Rule> denyRules;
    private final List<Rule> allowRules;

    /**
     * @param profile the profile's name, e.g. {@code P2}, for messages
     * @param deny rules checked first
     * @param allow the egress class's rules followed by the config file's {@code allow} entries
     */
    public Policy(String profile, List<Rule> deny, List<Rule> allow) {
        this.profile = Objects.requireNonNull(profile, "profile");
        this.denyRules = List.copyOf(deny);
        this.allowRules = List.copyOf(allow);
        this.deny = new RuleIndex(denyRules);
        this.allow = new RuleIndex(allowRules);
    }

    /** The deny rules, in order. */
    public List<Rule> denyRules() {
        return denyRules;
    }

    /** The allow rules, in order: the egress class's, then the config file's. */
    public List<Rule> allowRules() {
        return allowRules;
    }

    /** The profile's name, e.g. {@code P2}. */
    public String profile() {
        return profile;
    }

    /**
     * Decides a target; pure and allocation-light.
     *
     * <ul>
     *   <li>A deny rule matching host, port and (where it has them) method and path: DENY,
     *       {@code host_not_allowed}. A path servers could read two ways counts as matching a
     *       deny rule's path, so an encoded {@code ..} cannot walk around it.
     *   <li>Then the allow list: no rule for the host, {@code host_not_allowed} (rule null); a
     *       rule for the host but none for the port, {@code port_not_allowed}; then
     *       {@code method_not_allowed}, then {@code path_not_allowed}. These refusals name the
     *       rule that came closest, so the hint can say what it permits.
     *   <li>An opaque CONNECT (no method or path) is ALLOWed by a rule without method or path
     *       restrictions; when only restricted rules (or a restricted deny rule) cover it, the
     *       outcome is NEEDS_INSPECTION, whose reason is the refusal to give when the proxy
     *       cannot intercept: {@code method_not_allowed} or {@code path_not_allowed} for the
     *       allow rule, {@code host_not_allowed} for a deny rule.
     * </ul>
     *
     * When several rules qualify, the first in its list is named.
     */
    public Decision decide(Target target) {
        Destination d = target.destination();
        Evaluation denied = new Evaluation(target, true);
        deny.forEachMatch(d, denied);
        if (denied.full != null) {
            return new Decision(Decision.Outcome.DENY, Reason.HOST_NOT_ALLOWED, denied.full.description);
        }
        Evaluation allowed = new Evaluation(target, false);
        allow.forEachMatch(d, allowed);
        if (allowed.full != null || allowed.inspect != null) {
            if (denied.inspect != null) {
                return new Decision(Decision.Outcome.NEEDS_INSPECTION, Reason.HOST_NOT_ALLOWED, denied.inspect.description);
            }
            if (allowed.full != null) {
                return new Decision(Decision.Outcome.ALLOW, Reason.ALLOWED, allowed.full.description);
            }
            Reason reason = allowed.inspect.rule.methods().isEmpty() ? Reason.PATH_NOT_ALLOWED : Reason.METHOD_NOT_ALLOWED;
            return new Decision(Decision.Outcome.NEEDS_INSPECTION, reason, allowed.inspect.description);
        }
        if (allowed.hostHit == null) {
            return new Decision(Decision.Outcome.DENY, Reason.HOST_NOT_ALLOWED, null);
        }
        if (allowed.portHit == null) {
            return new Decision(Decision.Outcome.DENY, Reason.PORT_NOT_ALLOWED, allowed.hostHit.description);
        }
        if (allowed.methodHit == null) {
            return new Decision(Decision.Outcome.DENY, Reason.METHOD_NOT_ALLOWED, allowed.portHit.description);
        }
        return new Decision(Decision.Outcome.DENY, Reason.PATH_NOT_ALLOWED, allowed.methodHit.description);
    }

    /** Walks the rules of one list that match the host, remembering how far the first got. */
    private static final class Evaluation implements RuleIndex.Visitor {
        private final int port;
        private final String method;
        private final String rawPath;
        private final boolean ambiguousPathMatches;
        private boolean pathNormalized;
        private List<String> path;

        IndexedRule hostHit;
        IndexedRule portHit;
        IndexedRule methodHit;
        /** Host, port, method and path all match. */
        IndexedRule full;
        /** Host and port match, the rule restricts method or path, and the target is opaque. */
        IndexedRule inspect;

        Evaluation(Target target, boolean ambiguousPathMatches) {
            this.port = target.destination().port();
            this.method = target.method() == null ? null : target.method().toUpperCase(Locale.ROOT);
            this.rawPath = target.path();
            this.ambiguousPathMatches = ambiguousPathMatches;
        }

        @Override
        public void visit(IndexedRule r) {
            hostHit = IndexedRule.first(hostHit, r);
            if (!r.portAllowed(port)) {
                return;
            }
            portHit = IndexedRule.first(portHit, r);
            if (!r.rule.hasL7()) {
                methodHit = IndexedRule.first(methodHit, r);
                full = IndexedRule.first(full, r);
                return;
            }
            if (method == null) {
                // Opaque CONNECT: the proxy cannot tell whether the restriction holds.
                inspect = IndexedRule.first(inspect, r);
                return;
            }
            if (!r.methodAllowed(method)) {
                return;
            }
            methodHit = IndexedRule.first(methodHit, r);
            if (r.rule.paths().isEmpty() || r.pathAllowed(path(), ambiguousPathMatches)) {
                full = IndexedRule.first(full, r);
            }
        }

        /** Normalized once per decision, and only when a rule has paths. */
        private List<String> path() {
            if (!pathNormalized) {
                path = PathNormalizer.segments(rawPath);
                pathNormalized = true;
            }
            return path;
        }
    }
}
