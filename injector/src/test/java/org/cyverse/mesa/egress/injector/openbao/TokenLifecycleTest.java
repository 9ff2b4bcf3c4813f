package org.cyverse.mesa.egress.injector.openbao;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The token's life with short TTLs (3 s; every wait bounded): renew-self ahead of expiry, a new
 * login when the token is not renewable or its max TTL caps the renewal. Shapes: auth/token.mdx
 * ("Renew a token (Self)") and auth/kubernetes.mdx ("Login").
 */
class TokenLifecycleTest extends OpenBaoTestBase {

    private int logins() {
        return bao.server().findAll(postRequestedFor(urlEqualTo("/v1/auth/kubernetes/login"))).size();
    }

    private int renewals() {
        return bao.server().findAll(postRequestedFor(urlEqualTo("/v1/auth/token/renew-self"))
                .withHeader("X-Vault-Token", equalTo(TOKEN_1))).size();
    }

    @Test
    void aRenewableTokenIsRenewedWithRenewSelfAheadOfExpiry() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3, true);
        bao.renewSelf(TOKEN_1, 3);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        kubernetesSource().fetch(KV_REF);
        assertEquals(0, renewals(), "not renewed at once");

        await("two renew-self calls", 8, () -> renewals() >= 2);
        assertEquals(1, logins(), "a renewable token is renewed, not replaced");
    }

    @Test
    void aTokenThatIsNotRenewableIsReplacedByANewLogin() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3, false);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        kubernetesSource().fetch(KV_REF);

        await("a second login", 8, () -> logins() >= 2);
        assertEquals(0, renewals());
    }

    @Test
    void aRenewalCappedByTheMaxTtlLeadsToANewLogin() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3, true);
        bao.renewSelf(TOKEN_1, 1); // less than half of the 3 s granted: the max TTL is near
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        kubernetesSource().fetch(KV_REF);

        await("a login after the capped renewal", 8, () -> renewals() >= 1 && logins() >= 2);
    }

    @Test
    void aFailedRenewalIsRetriedWithBackOff() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 6, true);
        bao.error("/v1/auth/token/renew-self", 503, "error-sealed.json");
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        kubernetesSource().fetch(KV_REF);

        // The first attempt at 4 s fails; the retry comes after a jittered 0.5 to 1 s, before the 6 s
        // expiry. (With a 3 s TTL a loaded 2-core machine could start the first attempt late enough
        // that the retry, never scheduled past the expiry, did not happen: the test flaked.)
        await("a retried renew-self", 12, () -> renewals() >= 2);
        assertEquals(1, logins(), "a sealed OpenBao is waited out, not answered with a new login");
    }

    @Test
    void retryDelaysGrowAndStayJitteredWithinBounds() {
        for (int failures = 1; failures <= 10; failures++) {
            long full = Math.min(30_000, 1000L << (failures - 1));
            Duration d = TokenKeeper.retryDelay(failures);
            assertTrue(d.toMillis() >= full / 2 && d.toMillis() <= full, failures + " failures gave " + d);
        }
    }
}
