package org.cyverse.mesa.egress.injector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store fetches off the caller's thread, keeps values fresh, and never serves one it should not. */
class CredentialStoreTest {

    private static final String FETCHER = "store-test-fetcher";

    @TempDir
    Path dir;

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(1, r -> {
        Thread t = new Thread(r, FETCHER);
        t.setDaemon(true);
        return t;
    });
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<CredentialStore> stores = new ArrayList<>();
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final Logger log = Logger.getLogger(CredentialStore.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            messages.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void captureLog() {
        log.addHandler(capture);
    }

    @AfterEach
    void stop() {
        stores.forEach(CredentialStore::close);
        executor.shutdownNow();
        log.removeHandler(capture);
        for (CredentialStore store : stores) {
            messages.add(String.valueOf(store.notReadyReason()));
        }
        // Nothing the store says to a person (readiness reason, log line) ever holds a value.
        messages.forEach(m -> Leaks.assertClean(m, "value-1", "value-2", "file-value-1", "file-value-2", "bad\r\nX-Evil: 1", "runtime-secret"));
    }

    /** A source whose answers the test sets; records where it ran. */
    static final class FakeSource implements SecretSource {
        interface Answer {
            SecretLease get() throws SecretUnavailableException;
        }

        volatile Answer answer;
        final AtomicBoolean changed = new AtomicBoolean();
        final List<String> threads = new CopyOnWriteArrayList<>();

        FakeSource(Answer answer) {
            this.answer = answer;
        }

        @Override
        public String scheme() {
            return "fake";
        }

        @Override
        public SecretLease fetch(SecretRef ref) throws SecretUnavailableException {
            threads.add(Thread.currentThread().getName());
            changed.set(false);
            return answer.get();
        }

        @Override
        public boolean changed(SecretRef ref, SecretLease lease) {
            return changed.get();
        }
    }

    private static SecretLease lease(String value, Duration lifetime) {
        return new SecretLease(Secret.of(value), lifetime == null ? null : Instant.now().plus(lifetime), null);
    }

    private static CredentialSpec spec(String name, String secret) {
        return new CredentialSpec(name, List.of(HostPattern.parse(name + ".example.com")), Set.of(443), Set.of(), List.of(),
                null, null, "Bearer {secret}", secret.startsWith("fake:") ? new SecretRef("fake", secret.substring(5), null) : SecretRef.parse(secret),
                false, false);
    }

    private CredentialStore store(List<CredentialSpec> specs, Map<String, SecretSource> sources) {
        CredentialStore store = new CredentialStore(specs, sources, executor, (name, outcome) -> events.add(name + ":" + outcome));
        stores.add(store);
        return store;
    }

    private CredentialStore fake(FakeSource source) {
        return store(List.of(spec("fake", "fake:one")), Map.of("fake", source));
    }

    private static void await(String what, Duration within, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + within + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    private void awaitEvents(String... expected) throws InterruptedException {
        await("events " + List.of(expected) + ", got " + events, Duration.ofSeconds(5), () -> events.equals(List.of(expected)));
    }

    private static String value(CredentialStore store, String name) {
        return store.current(name).map(Secret::reveal).orElse(null);
    }

    @Test
    void startReturnsAtOnceAndTheFirstFetchRunsOnTheExecutor() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        FakeSource source = new FakeSource(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return lease("value-1", null);
        });
        CredentialStore store = fake(source);

        store.start(); // would hang here if the fetch ran on the caller
        assertEquals(Optional.empty(), store.current("fake"), "nothing before the first fetch");
        assertEquals("credential fake not resolved yet: first fetch pending", store.notReadyReason());
        release.countDown();
        awaitEvents("fake:success");

        assertEquals("value-1", value(store, "fake"));
        assertNull(store.notReadyReason());
        assertEquals(List.of(FETCHER), source.threads);
        assertNotEquals(Thread.currentThread().getName(), source.threads.get(0));
    }

    @Test
    void aFailedFirstFetchIsRetriedWithBackOffAndReportedUntilItSucceeds() throws Exception {
        FakeSource source = new FakeSource(() -> {
            throw new SecretUnavailableException("broker said 503 for secret/data/agents/fake");
        });
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:failure");
        String reason = store.notReadyReason();
        messages.add(reason);

        assertEquals("credential fake not resolved yet: broker said 503 for secret/data/agents/fake", reason);
        source.answer = () -> lease("value-1", null);
        awaitEvents("fake:failure", "fake:success"); // the retry comes after 0.5..1 s
        assertEquals("value-1", value(store, "fake"));
        assertNull(store.notReadyReason());
    }

    @Test
    void aRewrittenFileIsPickedUpWithinSeconds() throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "api_key: file-value-1\n");
        CredentialStore store = store(List.of(spec("filed", "file:" + file + "#api_key")), Map.of("file", new FileSecretSource()));
        store.start();
        awaitEvents("filed:success");
        assertEquals("file-value-1", value(store, "filed"));

        Files.writeString(file, "api_key: file-value-2\n");

        await("the new value", Duration.ofSeconds(5), () -> "file-value-2".equals(value(store, "filed")));
        assertEquals(List.of("filed:success", "filed:success"), events);
    }

    @Test
    void temporaryCredentialsInFilesOfTheirOwnAreReReadWhenAnyOfThemIsRewritten() throws Exception {
        // Kubernetes mounts one key per file: the key id, secret and token of an aws_sigv4 credential each in its own.
        Path keyId = dir.resolve("access_key_id");
        Path secret = dir.resolve("secret_access_key");
        Path token = dir.resolve("session_token");
        Files.writeString(keyId, "ASIAFIRSTISSUE000001\n");
        Files.writeString(secret, "first-secret-key\n");
        Files.writeString(token, "first-session-token\n");
        org.cyverse.mesa.egress.injector.sigv4.SigV4Keys keys = new org.cyverse.mesa.egress.injector.sigv4.SigV4Keys("SNTLSENTINEL00000001",
                "sentinel-secret-access-key", null, SecretRef.parse("file:" + keyId), SecretRef.parse("file:" + token));
        CredentialSpec osn = new CredentialSpec("osn", List.of(HostPattern.parse("osn.example.org")), Set.of(443), Set.of(), List.of(),
                "SNTLSENTINEL00000001", null, "Bearer {secret}", SecretRef.parse("file:" + secret), false, false, keys,
                org.cyverse.mesa.egress.injector.CredentialLimits.NONE);
        CredentialStore store = store(List.of(osn), Map.of("file", new FileSecretSource()));
        store.start();
        awaitEvents("osn:success");
        SecretLease first = store.lease("osn").orElseThrow();
        assertEquals("ASIAFIRSTISSUE000001", first.part("access_key_id").orElseThrow().reveal());
        assertEquals("first-session-token", first.part("session_token").orElseThrow().reveal());

        Files.writeString(keyId, "ASIASECONDISSUE00002\n");
        Files.writeString(secret, "second-secret-key\n");
        Files.writeString(token, "second-session-token\n");

        await("the new triple", Duration.ofSeconds(5), () -> store.lease("osn").map(l -> l.part("session_token").orElseThrow().reveal())
                .orElse("").equals("second-session-token") && "second-secret-key".equals(value(store, "osn")));
        SecretLease second = store.lease("osn").orElseThrow();
        assertEquals("ASIASECONDISSUE00002", second.part("access_key_id").orElseThrow().reveal());
        assertTrue(store.held("osn").contains(Secret.of("first-session-token")), "an old token is still scrubbed from answers");
        assertEquals(List.of(Secret.of("ASIAFIRSTISSUE000001"), Secret.of("ASIASECONDISSUE00002")), store.heldPart("osn", "access_key_id"));
    }

    @Test
    void aValueWithoutThePartsItNeedsIsNotServed() throws Exception {
        Path secret = dir.resolve("secret_access_key");
        Files.writeString(secret, "a-secret-key\n");
        org.cyverse.mesa.egress.injector.sigv4.SigV4Keys keys = new org.cyverse.mesa.egress.injector.sigv4.SigV4Keys("SNTLSENTINEL00000001",
                "sentinel-secret-access-key", null, SecretRef.parse("file:" + dir.resolve("missing_key_id")), null);
        CredentialSpec osn = new CredentialSpec("osn", List.of(HostPattern.parse("osn.example.org")), Set.of(443), Set.of(), List.of(),
                "SNTLSENTINEL00000001", null, "Bearer {secret}", SecretRef.parse("file:" + secret), false, false, keys,
                org.cyverse.mesa.egress.injector.CredentialLimits.NONE);
        CredentialStore store = store(List.of(osn), Map.of("file", new FileSecretSource()));
        store.start();
        awaitEvents("osn:failure");
        assertEquals(Optional.empty(), store.lease("osn"), "a secret key without its key id is no use, and not served");
        assertTrue(store.notReadyReason().contains("missing_key_id") && store.notReadyReason().contains("does not exist"),
                store.notReadyReason());
    }

    @Test
    void aValueIsRefreshedAheadOfItsExpiry() throws Exception {
        List<Instant> expiries = new CopyOnWriteArrayList<>();
        FakeSource source = new FakeSource(() -> {
            SecretLease lease = lease("value-1", Duration.ofSeconds(3));
            expiries.add(lease.expiresAt());
            return lease;
        });
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:success");
        Instant firstExpiry = expiries.get(0);
        source.answer = () -> lease("value-2", Duration.ofMinutes(10));

        await("the refreshed value", Duration.ofSeconds(5), () -> "value-2".equals(value(store, "fake")));
        assertTrue(Instant.now().isBefore(firstExpiry), "refreshed at two thirds of the lifetime, before it ran out");
    }

    @Test
    void aFailedRefreshKeepsTheValidValueThenExpiryDropsIt() throws Exception {
        FakeSource source = new FakeSource(() -> lease("value-1", Duration.ofSeconds(3)));
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:success");
        source.answer = () -> {
            throw new SecretUnavailableException("broker unreachable");
        };

        await("a failed refresh", Duration.ofSeconds(3), () -> events.contains("fake:failure")); // at about 2 s
        assertEquals("value-1", value(store, "fake"), "still valid: keep serving it");
        await("expiry", Duration.ofSeconds(3), () -> store.current("fake").isEmpty()); // at 3 s
        assertNull(store.notReadyReason(), "resolved once: ready stays ready, requests get 503 credential_unavailable");
    }

    @Test
    void aRevokedValueIsDroppedAtOnce() throws Exception {
        FakeSource source = new FakeSource(() -> lease("value-1", null));
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:success");
        source.answer = () -> {
            throw new SecretUnavailableException("lease revoked", true, null);
        };

        source.changed.set(true);
        awaitEvents("fake:success", "fake:revoked");

        assertEquals(Optional.empty(), store.current("fake"), "a kill switch must not wait for expiry");
    }

    @Test
    void theListenerHearsEveryOutcome() throws Exception {
        FakeSource source = new FakeSource(() -> {
            throw new SecretUnavailableException("not yet");
        });
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:failure");
        source.answer = () -> lease("value-1", null);
        awaitEvents("fake:failure", "fake:success");
        source.answer = () -> {
            throw new SecretUnavailableException("revoked", true, null);
        };
        source.changed.set(true);

        awaitEvents("fake:failure", "fake:success", "fake:revoked");
    }

    @Test
    void notReadyNamesEachMissingCredentialAndWhy() throws Exception {
        CredentialStore store = store(List.of(spec("good", "env:GOOD"), spec("missing", "env:MISSING"), spec("orphan", "openbao:kv/data/x#k")),
                Map.of("env", new EnvSecretSource(Map.of("GOOD", "value-1"))));
        store.start();
        await("three outcomes", Duration.ofSeconds(5), () -> events.size() >= 3);
        String reason = store.notReadyReason();
        messages.add(reason);

        assertEquals("credential missing not resolved yet: environment variable MISSING is not set; "
                + "credential orphan not resolved yet: no source serves openbao: secrets", reason);
        assertEquals("value-1", value(store, "good"));
    }

    @Test
    void aValueWithALineBreakIsRefusedItWouldSplitAHeader() throws Exception {
        CredentialStore store = store(List.of(spec("crlf", "env:CRLF")), Map.of("env", new EnvSecretSource(Map.of("CRLF", "bad\r\nX-Evil: 1"))));
        store.start();
        awaitEvents("crlf:failure");
        String reason = store.notReadyReason();
        messages.add(reason);

        assertEquals(Optional.empty(), store.current("crlf"));
        assertTrue(reason.contains("control character"), reason);
    }

    @Test
    void aSourceThatThrowsUnexpectedlyIsReportedByTypeOnly() throws Exception {
        FakeSource source = new FakeSource(() -> {
            throw new IllegalStateException("parse error near runtime-secret");
        });
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:failure");
        String reason = store.notReadyReason();
        messages.add(reason);

        assertTrue(reason.contains("IllegalStateException"), reason);
    }

    @Test
    void afterCloseNothingIsFetchedButTheValueStaysUntilItExpires() throws Exception {
        FakeSource source = new FakeSource(() -> lease("value-1", null));
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:success");
        store.close();
        source.changed.set(true);
        Thread.sleep(1500);

        assertEquals(1, source.threads.size(), "no fetch after close");
        assertEquals("value-1", value(store, "fake"), "requests in flight under the old config still get it");
    }

    @Test
    void retriesBackOffFromOneSecondToOneMinuteWithJitter() {
        for (int failures = 1; failures <= 40; failures++) {
            long full = Math.min(60_000, 1000L << Math.min(failures - 1, 16));
            long delay = CredentialStore.retryDelay(failures).toMillis();
            assertTrue(delay >= full / 2 && delay <= full, failures + " failures: " + delay + " ms");
        }
        assertFalse(CredentialStore.retryDelay(30).toMillis() > TimeUnit.MINUTES.toMillis(1));
    }

    @Test
    void aValueRefreshedAwayIsStillScrubbedFromResponses() throws Exception {
        AtomicReference<SecretLease> answer = new AtomicReference<>(lease("old-secret-value-1", null));
        FakeSource source = new FakeSource(answer::get);
        CredentialStore store = fake(source);
        store.start();
        awaitEvents("fake:success");
        Injector injector = new Injector(List.of(spec("fake", "fake:one")), store);
        long before = store.generation();

        answer.set(lease("new-secret-value-2", null));
        source.changed.set(true);
        await("the new value", Duration.ofSeconds(5), () -> "new-secret-value-2".equals(value(store, "fake")));

        assertTrue(store.generation() > before);
        assertEquals("a [redacted:fake] b [redacted:fake]", injector.scrubHeaderValue("a old-secret-value-1 b new-secret-value-2"));
        byte[] body = "echo old-secret-value-1!".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        StreamReplacer scrubber = injector.responseScrubber();
        String out = new String(scrubber.feed(body, 0, body.length), java.nio.charset.StandardCharsets.UTF_8)
                + new String(scrubber.finish(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals("echo [redacted:fake]!", out);
    }
}
