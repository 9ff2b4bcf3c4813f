package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EgressClassTest {

    @Test
    void oneRulePerHostNamedAfterTheClass() {
        EgressClass n1 = new EgressClass("N1", "trusted", false,
                List.of(HostPattern.parse("github.com"), HostPattern.parse("*.pypi.org")), Set.of(443));
        List<Rule> rules = n1.rules();
        assertEquals(2, rules.size());
        assertEquals(new Rule("class N1", HostPattern.parse("github.com"), Set.of(443), Set.of(), List.of()), rules.get(0));
        assertEquals(new Rule("class N1", HostPattern.parse("*.pypi.org"), Set.of(443), Set.of(), List.of()), rules.get(1));
        rules.forEach(r -> assertFalse(r.hasL7(), "a class never forces interception"));
    }

    @Test
    void anyPublicHostIsOneRuleForEveryHost() {
        EgressClass n0 = new EgressClass("N0", "open", true, List.of(HostPattern.parse("ignored.test")), Set.of(80, 443));
        assertEquals(List.of(new Rule("class N0", HostPattern.any(), Set.of(80, 443), Set.of(), List.of())), n0.rules());
    }

    @Test
    void noHostsNoRules() {
        assertEquals(List.of(), new EgressClass("N3", "none", false, List.of(), Set.of()).rules());
    }
}
