package org.cyverse.mesa.egress.injector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.injector.Injection.Outcome;
import org.junit.jupiter.api.Test;

/**
 * A secret that changes at its source: from the moment the store holds the new value, the
 * injector sends it and refuses it as a leak, although it reuses what it derived from the
 * previous value for as long as the value does not change.
 */
class InjectorRotationTest {

    private static final String OLD = "sk-rot-OLD-0123456789";
    private static final String NEW = "sk-rot-NEW-9876543210";

    @Test
    void aRotatedSecretIsInjectedAndCaughtAsALeakAtOnce() throws Exception {
        AtomicReference<String> value = new AtomicReference<>(OLD);
        SecretSource rotating = new SecretSource() {
            @Override
            public String scheme() {
                return "env";
            }

            @Override
            public SecretLease fetch(SecretRef ref) {
                return new SecretLease(Secret.of(value.get()), null, value.get().substring(7, 10));
            }

            @Override
            public boolean changed(SecretRef ref, SecretLease lease) {
                return !lease.secret().equals(Secret.of(value.get()));
            }
        };
        CredentialSpec spec = new CredentialSpec("rot", List.of(HostPattern.parse("api.example.com")), Set.of(443), Set.of(), List.of(),
                "rot-sentinel", "x-api-key", "{secret}", SecretRef.parse("env:ROT"), false, false);
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        try (CredentialStore store = new CredentialStore(List.of(spec), Map.of("env", rotating), executor, (c, o) -> { })) {
            store.start();
            awaitValue(store, OLD);
            Injector injector = new Injector(List.of(spec), store);
            OutgoingRequest plain = InjectorTest.https("api.example.com", "/v1", "accept", "*/*");

            for (int i = 0; i < 3; i++) { // the same value again: what was derived from it is reused
                assertEquals(List.of(Map.entry("accept", "*/*"), Map.entry("x-api-key", OLD)), injector.apply(plain).headers());
                assertEquals(Outcome.SECRET_LEAK, injector.apply(InjectorTest.https("api.example.com", "/v1", "x-leak", OLD)).outcome());
            }

            value.set(NEW);
            awaitValue(store, NEW);
            assertEquals(List.of(Map.entry("accept", "*/*"), Map.entry("x-api-key", NEW)), injector.apply(plain).headers());
            assertEquals(Outcome.SECRET_LEAK, injector.apply(InjectorTest.https("api.example.com", "/v1", "x-leak", NEW)).outcome(),
                    "the new value is a leak as soon as the store holds it");
            assertEquals(Outcome.SECRET_LEAK, injector.apply(InjectorTest.https("elsewhere.example.org", "/", "x-leak", NEW)).outcome());
        } finally {
            executor.shutdownNow();
        }
    }

    private static void awaitValue(CredentialStore store, String expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!store.current("rot").map(s -> s.equals(Secret.of(expected))).orElse(false)) {
            assertTrue(System.nanoTime() < deadline, "the store never held the expected value");
            Thread.sleep(20);
        }
    }
}
