package org.cyverse.mesa.egress.allowlist;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One rule list (deny or allow) indexed by host so that finding the rules for a destination
 * costs a hash lookup per label of its name, or per distinct CIDR prefix length, however many
 * rules there are: a profile with 100,000 hosts must not slow every request down.
 */
final class RuleIndex {

    /** Receives each rule whose host pattern matches the destination, in no particular order. */
    interface Visitor {
        void visit(IndexedRule rule);
    }

    private final Map<String, List<IndexedRule>> exact = new HashMap<>();
    /** Keyed by the part after "*.", e.g. "example.org" for "*.example.org". */
    private final Map<String, List<IndexedRule>> suffix = new HashMap<>();
    /** Keyed by canonical literal; IPv4 and IPv6 texts never collide. */
    private final Map<String, List<IndexedRule>> address = new HashMap<>();
    private final List<IndexedRule> any = new ArrayList<>();
    private final CidrBuckets cidr4 = new CidrBuckets();
    private final CidrBuckets cidr6 = new CidrBuckets();

    RuleIndex(List<Rule> rules) {
        for (int i = 0; i < rules.size(); i++) {
            IndexedRule r = new IndexedRule(i, rules.get(i));
            HostPattern host = r.rule.host();
            switch (host.kind()) {
                case ANY:
                    any.add(r);
                    break;
                case EXACT:
                    exact.computeIfAbsent(host.key(), k -> new ArrayList<>(1)).add(r);
                    break;
                case SUFFIX:
                    suffix.computeIfAbsent(host.key(), k -> new ArrayList<>(1)).add(r);
                    break;
                case ADDRESS:
                    address.computeIfAbsent(host.key(), k -> new ArrayList<>(1)).add(r);
                    break;
                default:
                    Cidr c = host.cidr();
                    (c.networkBytes().length == 4 ? cidr4 : cidr6).add(c, r);
            }
        }
    }

    /** Calls {@code visitor} for every rule whose host pattern matches {@code d}. */
    void forEachMatch(Destination d, Visitor visitor) {
        visitAll(any, visitor);
        String host = d.host();
        if (d.kind() == HostKind.NAME) {
            visitAll(exact.get(host), visitor);
            if (!suffix.isEmpty()) {
                // Every proper parent domain: a.b.example.org -> b.example.org, example.org, org.
                for (int dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
                    visitAll(suffix.get(host.substring(dot + 1)), visitor);
                }
            }
            return;
        }
        visitAll(address.get(host), visitor);
        CidrBuckets buckets = d.kind() == HostKind.IPV4 ? cidr4 : cidr6;
        if (!buckets.isEmpty()) {
            buckets.forEachMatch(d.addressBytes(), visitor);
        }
        // [::ffff:203.0.113.7] and [64:ff9b::cb00:7107] reach 203.0.113.7: IPv4 rules apply.
        byte[] v4 = HostPattern.ipv4Reached(d);
        if (v4 != null) {
            visitAll(address.get(IpText.formatIpv4(v4, 0)), visitor);
            if (!cidr4.isEmpty()) {
                cidr4.forEachMatch(v4, visitor);
            }
        }
    }

    private static void visitAll(List<IndexedRule> rules, Visitor visitor) {
        if (rules != null) {
            for (IndexedRule r : rules) {
                visitor.visit(r);
            }
        }
    }

    /** CIDRs of one family, one hash map per distinct prefix length, keyed by masked address. */
    private static final class CidrBuckets {
        private final TreeMap<Integer, Map<Key, List<IndexedRule>>> byPrefix = new TreeMap<>();
        private int[] prefixes = new int[0];
        private List<Map<Key, List<IndexedRule>>> maps = List.of();

        void add(Cidr c, IndexedRule r) {
            byPrefix.computeIfAbsent(c.prefixLength(), p -> new HashMap<>())
                    .computeIfAbsent(Key.of(c.networkBytes(), c.prefixLength()), k -> new ArrayList<>(1))
                    .add(r);
            prefixes = byPrefix.keySet().stream().mapToInt(Integer::intValue).toArray();
            maps = List.copyOf(byPrefix.values());
        }

        boolean isEmpty() {
            return prefixes.length == 0;
        }

        void forEachMatch(byte[] address, Visitor visitor) {
            for (int i = 0; i < prefixes.length; i++) {
                visitAll(maps.get(i).get(Key.of(address, prefixes[i])), visitor);
            }
        }
    }

    /** Up to 128 address bits, masked to a prefix length. */
    private record Key(long high, long low) {
        static Key of(byte[] address, int prefix) {
            long high = 0;
            long low = 0;
            int n = address.length;
            for (int i = 0; i < n; i++) {
                int keep = Math.max(0, Math.min(8, prefix - 8 * i));
                long b = address[i] & (0xff << (8 - keep)) & 0xff;
                if (n == 16 && i < 8) {
                    high = high << 8 | b;
                } else {
                    low = low << 8 | b;
                }
            }
            return new Key(high, low);
        }
    }
}
