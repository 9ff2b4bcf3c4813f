package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.Decision.Outcome;
import org.cyverse.mesa.egress.allowlist.Decision.Reason;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A policy the size of a large site list (100,000 names, 1,000 suffixes, IPv4 and IPv6 CIDRs of
 * several prefix lengths) decides exactly as walking every rule with {@link HostPattern#matches}
 * would. Correctness only: timing belongs to bench/.
 */
class PolicyScaleTest {

    static final List<Rule> DENY = new ArrayList<>();
    static final List<Rule> ALLOW = new ArrayList<>();
    static Policy policy;

    @BeforeAll
    static void build() {
        DENY.add(rule("deny[0]", "host-777.bulk.test", Set.of()));
        DENY.add(rule("deny[1]", "*.bad.zone-3.test", Set.of()));
        DENY.add(rule("deny[2]", "10.20.30.0/24", Set.of()));
        for (int i = 0; i < 100_000; i++) {
            ALLOW.add(rule("allow[" + ALLOW.size() + "]", "host-" + i + ".bulk.test", Set.of(443)));
        }
        for (int i = 0; i < 1_000; i++) {
            ALLOW.add(rule("allow[" + ALLOW.size() + "]", "*.zone-" + i + ".test", Set.of(443, 8443)));
        }
        // Overlaps: an exact name inside a suffix, a suffix inside a suffix, nested CIDRs.
        ALLOW.add(rule("allow[" + ALLOW.size() + "]", "exact.zone-5.test", Set.of(80)));
        ALLOW.add(rule("allow[" + ALLOW.size() + "]", "*.deep.zone-6.test", Set.of(9000)));
        for (int i = 0; i < 200; i++) {
            ALLOW.add(rule("allow[" + ALLOW.size() + "]", "10." + i + ".0.0/16", Set.of(8080)));
            ALLOW.add(rule("allow[" + ALLOW.size() + "]", "10." + i + ".7.0/24", Set.of(9090)));
            ALLOW.add(rule("allow[" + ALLOW.size() + "]", "2001:db8:" + Integer.toHexString(i) + "::/48", Set.of(443)));
        }
        ALLOW.add(rule("allow[" + ALLOW.size() + "]", "10.0.0.0/8", Set.of(22)));
        ALLOW.add(rule("allow[" + ALLOW.size() + "]", "198.51.100.1", Set.of(443)));
        policy = new Policy("P2", DENY, ALLOW);
    }

    static Rule rule(String name, String host, Set<Integer> ports) {
        return new Rule(name, HostPattern.parse(host), ports, Set.of(), List.of());
    }

    @Test
    void spotChecks() throws Exception {
        assertEquals(allow("allow[0]: host-0.bulk.test"), decide("host-0.bulk.test", 443));
        assertEquals(allow("allow[99999]: host-99999.bulk.test"), decide("HOST-99999.bulk.test.", 443));
        assertEquals(deny(Reason.HOST_NOT_ALLOWED, null), decide("host-100000.bulk.test", 443));
        assertEquals(deny(Reason.PORT_NOT_ALLOWED, "allow[42]: host-42.bulk.test"), decide("host-42.bulk.test", 80));
        assertEquals(deny(Reason.HOST_NOT_ALLOWED, "deny[0]: host-777.bulk.test"), decide("host-777.bulk.test", 443));
        assertEquals(allow("allow[100999]: *.zone-999.test"), decide("a.b.c.zone-999.test", 8443));
        assertEquals(deny(Reason.HOST_NOT_ALLOWED, null), decide("zone-999.test", 443));
        assertEquals(deny(Reason.HOST_NOT_ALLOWED, "deny[1]: *.bad.zone-3.test"), decide("x.bad.zone-3.test", 443));
        assertEquals(allow("allow[100003]: *.zone-3.test"), decide("bad.zone-3.test", 443));
        assertEquals(allow("allow[101000]: exact.zone-5.test"), decide("exact.zone-5.test", 80));
        assertEquals(allow("allow[100005]: *.zone-5.test"), decide("exact.zone-5.test", 443));
        assertEquals(allow("allow[101001]: *.deep.zone-6.test"), decide("x.deep.zone-6.test", 9000));
        assertEquals(allow("allow[101002]: 10.0.0.0/16"), decide("10.0.7.1", 8080));
        assertEquals(allow("allow[101003]: 10.0.7.0/24"), decide("10.0.7.1", 9090));
        assertEquals(allow("allow[101602]: 10.0.0.0/8"), decide("10.250.1.1", 22));
        assertEquals(deny(Reason.PORT_NOT_ALLOWED, "allow[101602]: 10.0.0.0/8"), decide("10.250.1.1", 8080));
        assertEquals(deny(Reason.HOST_NOT_ALLOWED, "deny[2]: 10.20.30.0/24"), decide("10.20.30.40", 8080));
        assertEquals(allow("allow[101601]: 2001:db8:c7::/48"), decide("[2001:db8:c7:1::1]", 443));
        assertEquals(deny(Reason.HOST_NOT_ALLOWED, null), decide("[2001:db8:c8::1]", 443));
        assertEquals(allow("allow[101603]: 198.51.100.1"), decide("3325256705", 443));
    }

    @Test
    void indexAgreesWithWalkingEveryRule() throws Exception {
        Random random = new Random(20261129);
        int[] ports = {22, 80, 443, 8080, 8443, 9000, 9090};
        for (int i = 0; i < 80; i++) {
            int port = ports[random.nextInt(ports.length)];
            for (String host : candidates(random)) {
                Destination d = Destination.parse(host, port);
                assertEquals(reference(d), policy.decide(Target.tunnel(d)), host + ":" + port);
            }
        }
    }

    private static List<String> candidates(Random r) {
        return List.of(
                "host-" + r.nextInt(110_000) + ".bulk.test",
                "x" + r.nextInt(3) + ".zone-" + r.nextInt(1_100) + ".test",
                "zone-" + r.nextInt(1_100) + ".test",
                "a.deep.zone-" + r.nextInt(10) + ".test",
                "exact.zone-" + r.nextInt(10) + ".test",
                "10." + r.nextInt(256) + "." + r.nextInt(10) + "." + r.nextInt(256),
                "[::ffff:10." + r.nextInt(256) + ".7.1]",
                "[2001:db8:" + Integer.toHexString(r.nextInt(256)) + "::" + r.nextInt(100) + "]");
    }

    /** The slow, obvious reading of SPEC.md step 3 for rules without method or path. */
    private static Decision reference(Destination d) {
        for (Rule r : DENY) {
            if (r.host().matches(d) && portOk(r, d)) {
                return deny(Reason.HOST_NOT_ALLOWED, r.name() + ": " + r.host());
            }
        }
        Rule hostOnly = null;
        for (Rule r : ALLOW) {
            if (r.host().matches(d)) {
                if (portOk(r, d)) {
                    return allow(r.name() + ": " + r.host());
                }
                hostOnly = hostOnly == null ? r : hostOnly;
            }
        }
        return hostOnly == null ? deny(Reason.HOST_NOT_ALLOWED, null)
                : deny(Reason.PORT_NOT_ALLOWED, hostOnly.name() + ": " + hostOnly.host());
    }

    private static boolean portOk(Rule r, Destination d) {
        return r.ports().isEmpty() || r.ports().contains(d.port());
    }

    private static Decision decide(String host, int port) throws Exception {
        return policy.decide(Target.tunnel(Destination.parse(host, port)));
    }

    private static Decision allow(String rule) {
        return new Decision(Outcome.ALLOW, Reason.ALLOWED, rule);
    }

    private static Decision deny(Reason reason, String rule) {
        return new Decision(Outcome.DENY, reason, rule);
    }
}
