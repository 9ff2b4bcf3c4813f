package org.cyverse.mesa.egress.injector.openbao;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The credential store in front of the OpenBao source, with a 3 s KV lifetime: a value survives
 * OpenBao going away until it expires (then there is none: fail closed), and a 403 takes it away
 * within one lifetime.
 */
class OpenBaoCacheTest extends OpenBaoTestBase {

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);
    private CredentialStore store;

    @AfterEach
    void stopStore() {
        if (store != null) {
            store.close();
        }
        executor.shutdownNow();
    }

    private void startStore() throws Exception {
        source(settings(OpenBaoSettings.AuthMethod.KUBERNETES, "", Duration.ofSeconds(3)));
        CredentialSpec spec = new CredentialSpec("anthropic", List.of(HostPattern.parse("api.anthropic.com")), Set.of(443),
                Set.of(), List.of(), null, "x-api-key", "{secret}", KV_REF, false, false);
        store = new CredentialStore(List.of(spec), Map.of("openbao", source), executor, (name, outcome) -> { });
        store.start();
        await("the first fetch", 5, () -> store.notReadyReason() == null);
        assertEquals(SECRET, store.current("anthropic").orElseThrow().reveal());
    }

    @Test
    void whenOpenBaoGoesDownTheCachedValueServesUntilItExpiresThenNothing() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        startStore();

        bao.stop();
        assertEquals(SECRET, store.current("anthropic").orElseThrow().reveal(), "still valid right after OpenBao went away");
        await("the value to expire", 6, () -> store.current("anthropic").isEmpty());
        assertNull(store.notReadyReason(), "readiness is about the first fetch; requests get credential_unavailable");
    }

    @Test
    void a403IsSeenWithinOneKvLifetime() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        startStore();

        bao.error("/v1/" + KV_PATH, 403, "error-permission-denied.json");
        bao.lookupSelf(TOKEN_1, 3500, true);
        // Within one 3 s lifetime plus the store's 1 s tick: the refresh at 2/3 gets the 403 and drops it.
        await("the revoked value to go within one lifetime", 4, () -> store.current("anthropic").isEmpty());
    }
}
