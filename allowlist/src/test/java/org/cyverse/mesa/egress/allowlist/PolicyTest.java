package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.Decision.Outcome;
import org.cyverse.mesa.egress.allowlist.Decision.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SPEC.md decision step 3: deny list, then allow list; host, port, method, path. */
class PolicyTest {

    static final Policy POLICY = new Policy("P2",
            List.of(
                    rule("deny[0]", "uploads.example.org", Set.of(), Set.of(), List.of()),
                    rule("deny[1]", "git.example.org", Set.of(), Set.of("POST"), List.of()),
                    rule("deny[2]", "docs.example.org", Set.of(443), Set.of(), List.of("/private/**")),
                    rule("deny[3]", "203.0.113.66", Set.of(), Set.of(), List.of())),
            concat(
                    new EgressClass("N1", "trusted", false,
                            List.of(HostPattern.parse("github.com"), HostPattern.parse("*.githubusercontent.com")),
                            Set.of(443)).rules(),
                    List.of(
                            rule("allow[0]", "*.example.org", Set.of(443), Set.of(), List.of()),
                            rule("allow[1]", "api.service.test", Set.of(443), Set.of("GET", "head"), List.of()),
                            rule("allow[2]", "files.service.test", Set.of(443), Set.of(), List.of("/public/**")),
                            rule("allow[3]", "mixed.service.test", Set.of(443), Set.of("GET"), List.of("/api/**")),
                            rule("allow[4]", "203.0.113.0/24", Set.of(8080), Set.of(), List.of()),
                            rule("allow[5]", "198.51.100.7", Set.of(), Set.of(), List.of()),
                            rule("allow[6]", "open.service.test", Set.of(443), Set.of(), List.of()),
                            rule("allow[7]", "open.service.test", Set.of(443), Set.of("GET"), List.of()),
                            rule("allow[8]", "two.service.test", Set.of(443), Set.of("GET"), List.of()),
                            rule("allow[9]", "two.service.test", Set.of(443), Set.of("POST"), List.of("/upload/**")))));

    static Rule rule(String name, String host, Set<Integer> ports, Set<String> methods, List<String> paths) {
        List<PathGlob> globs = new ArrayList<>();
        paths.forEach(p -> globs.add(PathGlob.parse(p)));
        return new Rule(name, HostPattern.parse(host), ports, methods, globs);
    }

    static List<Rule> concat(List<Rule> a, List<Rule> b) {
        List<Rule> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Empty method and path columns make an opaque CONNECT; an empty rule column is null. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "class host                          | github.com              | 443  | GET  | /                  | ALLOW            | ALLOWED            | class N1: github.com",
        "class host, other spelling          | GitHub.COM.             | 443  |      |                    | ALLOW            | ALLOWED            | class N1: github.com",
        "class host, wrong port              | github.com              | 80   |      |                    | DENY             | PORT_NOT_ALLOWED   | class N1: github.com",
        "class suffix                        | raw.githubusercontent.com | 443 |     |                    | ALLOW            | ALLOWED            | class N1: *.githubusercontent.com",
        "class suffix not the apex           | githubusercontent.com   | 443  |      |                    | DENY             | HOST_NOT_ALLOWED   |",
        "unknown host                        | evil.test               | 443  |      |                    | DENY             | HOST_NOT_ALLOWED   |",
        "lookalike host                      | github.com.evil.test    | 443  |      |                    | DENY             | HOST_NOT_ALLOWED   |",
        "allow suffix                        | www.example.org         | 443  |      |                    | ALLOW            | ALLOWED            | allow[0]: *.example.org",
        "allow suffix at depth               | a.b.www.example.org     | 443  | GET  | /x                 | ALLOW            | ALLOWED            | allow[0]: *.example.org",
        "allow suffix not the apex           | example.org             | 443  |      |                    | DENY             | HOST_NOT_ALLOWED   |",
        "deny beats allow                    | uploads.example.org     | 443  | GET  | /                  | DENY             | HOST_NOT_ALLOWED   | deny[0]: uploads.example.org",
        "deny beats allow, tunnel            | uploads.example.org     | 443  |      |                    | DENY             | HOST_NOT_ALLOWED   | deny[0]: uploads.example.org",
        "deny before port reason             | UPLOADS.example.org.    | 8443 |      |                    | DENY             | HOST_NOT_ALLOWED   | deny[0]: uploads.example.org",
        "method allowed                      | api.service.test        | 443  | GET  | /x                 | ALLOW            | ALLOWED            | allow[1]: api.service.test",
        "method compared uppercase           | api.service.test        | 443  | head | /x                 | ALLOW            | ALLOWED            | allow[1]: api.service.test",
        "method refused                      | api.service.test        | 443  | POST | /x                 | DENY             | METHOD_NOT_ALLOWED | allow[1]: api.service.test",
        "method rule, tunnel                 | api.service.test        | 443  |      |                    | NEEDS_INSPECTION | METHOD_NOT_ALLOWED | allow[1]: api.service.test",
        "method rule, wrong port first       | api.service.test        | 80   |      |                    | DENY             | PORT_NOT_ALLOWED   | allow[1]: api.service.test",
        "path allowed                        | files.service.test      | 443  | GET  | /public/a/b        | ALLOW            | ALLOWED            | allow[2]: files.service.test",
        "path refused                        | files.service.test      | 443  | GET  | /private/a         | DENY             | PATH_NOT_ALLOWED   | allow[2]: files.service.test",
        "path dot-dot escape refused         | files.service.test      | 443  | GET  | /public/../private | DENY             | PATH_NOT_ALLOWED   | allow[2]: files.service.test",
        "path encoded escape refused         | files.service.test      | 443  | GET  | /public/%2e%2e/private | DENY         | PATH_NOT_ALLOWED   | allow[2]: files.service.test",
        "path encoded slash refused          | files.service.test      | 443  | GET  | /public%2f..%2fprivate | DENY         | PATH_NOT_ALLOWED   | allow[2]: files.service.test",
        "path rule, tunnel                   | files.service.test      | 443  |      |                    | NEEDS_INSPECTION | PATH_NOT_ALLOWED   | allow[2]: files.service.test",
        "method and path both fine           | mixed.service.test      | 443  | GET  | /api/v1            | ALLOW            | ALLOWED            | allow[3]: mixed.service.test",
        "method wrong, path fine             | mixed.service.test      | 443  | PUT  | /api/v1            | DENY             | METHOD_NOT_ALLOWED | allow[3]: mixed.service.test",
        "method fine, path wrong             | mixed.service.test      | 443  | GET  | /admin             | DENY             | PATH_NOT_ALLOWED   | allow[3]: mixed.service.test",
        "CIDR                                | 203.0.113.9             | 8080 |      |                    | ALLOW            | ALLOWED            | allow[4]: 203.0.113.0/24",
        "CIDR, decimal spelling              | 3405803785              | 8080 |      |                    | ALLOW            | ALLOWED            | allow[4]: 203.0.113.0/24",
        "CIDR, mapped IPv6 spelling          | [::ffff:203.0.113.9]    | 8080 |      |                    | ALLOW            | ALLOWED            | allow[4]: 203.0.113.0/24",
        "CIDR, wrong port                    | 203.0.113.9             | 443  |      |                    | DENY             | PORT_NOT_ALLOWED   | allow[4]: 203.0.113.0/24",
        "CIDR, outside                       | 203.0.114.9             | 8080 |      |                    | DENY             | HOST_NOT_ALLOWED   |",
        "deny address inside allowed CIDR    | 203.0.113.66            | 8080 |      |                    | DENY             | HOST_NOT_ALLOWED   | deny[3]: 203.0.113.66",
        "deny address via mapped IPv6        | [::ffff:cb00:7142]      | 8080 |      |                    | DENY             | HOST_NOT_ALLOWED   | deny[3]: 203.0.113.66",
        "deny address via NAT64              | [64:ff9b::203.0.113.66] | 8080 |      |                    | DENY             | HOST_NOT_ALLOWED   | deny[3]: 203.0.113.66",
        "address rule, any port              | 198.51.100.7            | 9999 |      |                    | ALLOW            | ALLOWED            | allow[5]: 198.51.100.7",
        "address rule, neighbour             | 198.51.100.8            | 9999 |      |                    | DENY             | HOST_NOT_ALLOWED   |",
        "unrestricted rule wins a tunnel     | open.service.test       | 443  |      |                    | ALLOW            | ALLOWED            | allow[6]: open.service.test",
        "first full match is named           | open.service.test       | 443  | GET  | /                  | ALLOW            | ALLOWED            | allow[6]: open.service.test",
        "second L7 rule allows               | two.service.test        | 443  | POST | /upload/x          | ALLOW            | ALLOWED            | allow[9]: two.service.test",
        "neither L7 rule allows: path        | two.service.test        | 443  | POST | /other             | DENY             | PATH_NOT_ALLOWED   | allow[9]: two.service.test",
        "neither L7 rule allows: method      | two.service.test        | 443  | PUT  | /upload/x          | DENY             | METHOD_NOT_ALLOWED | allow[8]: two.service.test",
        "deny method rule, tunnel            | git.example.org         | 443  |      |                    | NEEDS_INSPECTION | HOST_NOT_ALLOWED   | deny[1]: git.example.org",
        "deny method rule, other method      | git.example.org         | 443  | GET  | /repo              | ALLOW            | ALLOWED            | allow[0]: *.example.org",
        "deny method rule, its method        | git.example.org         | 443  | post | /repo              | DENY             | HOST_NOT_ALLOWED   | deny[1]: git.example.org",
        "deny L7 rule does not lift a port   | git.example.org         | 80   |      |                    | DENY             | PORT_NOT_ALLOWED   | allow[0]: *.example.org",
        "deny path rule                      | docs.example.org        | 443  | GET  | /private/x         | DENY             | HOST_NOT_ALLOWED   | deny[2]: docs.example.org",
        "deny path rule, encoded letters     | docs.example.org        | 443  | GET  | /%70rivate/x       | DENY             | HOST_NOT_ALLOWED   | deny[2]: docs.example.org",
        "deny path rule, dot-dot             | docs.example.org        | 443  | GET  | /public/../private/x | DENY           | HOST_NOT_ALLOWED   | deny[2]: docs.example.org",
        "deny path rule, ambiguous path      | docs.example.org        | 443  | GET  | /public/%2e%2e/x   | DENY             | HOST_NOT_ALLOWED   | deny[2]: docs.example.org",
        "deny path rule, other path          | docs.example.org        | 443  | GET  | /public/x          | ALLOW            | ALLOWED            | allow[0]: *.example.org",
        "deny path rule, tunnel              | docs.example.org        | 443  |      |                    | NEEDS_INSPECTION | HOST_NOT_ALLOWED   | deny[2]: docs.example.org",
    })
    void decides(String name, String host, int port, String method, String path, Outcome outcome, Reason reason, String rule)
            throws Exception {
        Destination d = Destination.parse(host, port);
        Target target = method == null ? Target.tunnel(d) : new Target(d, method, path);
        assertEquals(new Decision(outcome, reason, rule), POLICY.decide(target));
    }

    @Test
    void profileName() {
        assertEquals("P2", POLICY.profile());
    }

    @Test
    void emptyPolicyRefusesEverything() throws Exception {
        Policy empty = new Policy("P4", List.of(), List.of());
        assertEquals(new Decision(Outcome.DENY, Reason.HOST_NOT_ALLOWED, null),
                empty.decide(Target.tunnel(Destination.parse("github.com", 443))));
    }

    @Test
    void anyPublicHostClassStillHonoursDenyAndPorts() throws Exception {
        Policy n0 = new Policy("P0",
                List.of(rule("deny[0]", "10.0.0.0/8", Set.of(), Set.of(), List.of())),
                new EgressClass("N0", "open", true, List.of(), Set.of(80, 443)).rules());
        assertEquals(new Decision(Outcome.ALLOW, Reason.ALLOWED, "class N0: *"),
                n0.decide(Target.tunnel(Destination.parse("anything.test", 443))));
        assertEquals(new Decision(Outcome.ALLOW, Reason.ALLOWED, "class N0: *"),
                n0.decide(Target.tunnel(Destination.parse("[2001:db8::1]", 80))));
        assertEquals(new Decision(Outcome.DENY, Reason.PORT_NOT_ALLOWED, "class N0: *"),
                n0.decide(Target.tunnel(Destination.parse("anything.test", 22))));
        assertEquals(new Decision(Outcome.DENY, Reason.HOST_NOT_ALLOWED, "deny[0]: 10.0.0.0/8"),
                n0.decide(Target.tunnel(Destination.parse("012.1", 443))));
    }
}
