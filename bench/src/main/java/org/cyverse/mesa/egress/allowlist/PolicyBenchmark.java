package org.cyverse.mesa.egress.allowlist;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.bench.BenchmarkBase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link Policy#decide} against 10, 1,000 and 100,000 rules (exact names, suffixes, CIDRs), for
 * a hit on an exact name, a hit on a suffix, a hit in a CIDR, and a miss. The cost should not grow
 * with the rule count.
 */
@State(Scope.Benchmark)
public class PolicyBenchmark extends BenchmarkBase {

    @Param({"10", "1000", "100000"})
    public int rules;

    private Policy policy;
    private Target exactHit;
    private Target suffixHit;
    private Target cidrHit;
    private Target miss;

    @Setup
    public void setUp() throws InvalidDestinationException {
        List<Rule> allow = new ArrayList<>();
        for (int i = 0; i < rules; i++) {
            String host;
            switch (i % 3) {
                case 0: host = "host" + i + ".example.org"; break;
                case 1: host = "*.zone" + i + ".example.net"; break;
                default: host = "10." + (i >> 16 & 0xff) + "." + (i >> 8 & 0xff) + "." + (i & 0xff) + "/32"; break;
            }
            allow.add(new Rule("allow[" + i + "]", HostPattern.parse(host), Set.of(443), Set.of(), List.of()));
        }
        allow.add(new Rule("allow[cidr]", HostPattern.parse("198.51.100.0/24"), Set.of(443), Set.of(), List.of()));
        policy = new Policy("P2", List.of(), allow);
        exactHit = Target.tunnel(Destination.parse("host0.example.org", 443));
        suffixHit = Target.tunnel(Destination.parse("deep.a.zone1.example.net", 443));
        cidrHit = Target.tunnel(Destination.parse("198.51.100.7", 443));
        miss = Target.tunnel(Destination.parse("exfil.attacker.example.com", 443));
    }

    @Benchmark
    public Decision exactHit() {
        return policy.decide(exactHit);
    }

    @Benchmark
    public Decision suffixHit() {
        return policy.decide(suffixHit);
    }

    @Benchmark
    public Decision cidrHit() {
        return policy.decide(cidrHit);
    }

    @Benchmark
    public Decision miss() {
        return policy.decide(miss);
    }
}
