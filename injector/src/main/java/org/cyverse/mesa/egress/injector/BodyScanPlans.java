package org.cyverse.mesa.egress.injector;

import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.scan.Finding;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;

/**
 * The body scan plans of an {@link Injector}: every value each credential has held (a recent value
 * is as secret as the current one), and the sentinels of the credentials whose scope a request is
 * outside of. A plan depends only on the store's generation and on which sentinels are out of
 * scope, so plans are compiled once per such set and shared.
 */
final class BodyScanPlans {

    /** Distinct sets of out-of-scope sentinels kept at once: a handful in practice (one per kind of destination). */
    private static final int MAX_PLANS = 256;

    private final List<CredentialSpec> credentials;
    private final SecretValues store;
    private volatile Generation current = new Generation(Long.MIN_VALUE);

    private record Generation(long number, ConcurrentHashMap<BitSet, ScanPlan> plans) {
        Generation(long number) {
            this(number, new ConcurrentHashMap<>());
        }
    }

    BodyScanPlans(List<CredentialSpec> credentials, SecretValues store) {
        this.credentials = credentials;
        this.store = store;
    }

    ScanPlan plan(Destination destination, String method, String path) {
        BitSet outside = new BitSet();
        for (int i = 0; i < credentials.size(); i++) {
            CredentialSpec c = credentials.get(i);
            if (c.sentinel() != null && CredentialReach.miss(c, destination, method, path) != null) {
                outside.set(i);
            }
        }
        long number = store.generation();
        Generation g = current;
        if (g.number() != number || g.plans().size() >= MAX_PLANS) {
            g = new Generation(number);
            current = g;
        }
        return g.plans().computeIfAbsent(outside, this::build);
    }

    private ScanPlan build(BitSet outside) {
        ScanPlan.Builder plan = new ScanPlan.Builder();
        for (CredentialSpec c : credentials) {
            for (Secret secret : store.held(c.name())) {
                plan.add(c.name(), Finding.Kind.SECRET, secret.reveal());
            }
        }
        outside.stream().forEach(i -> plan.add(credentials.get(i).name(), Finding.Kind.SENTINEL, credentials.get(i).sentinel()));
        return plan.build();
    }
}
