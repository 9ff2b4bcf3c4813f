package org.cyverse.mesa.egress.injector.openbao;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.junit.jupiter.api.Test;

/**
 * Reading secrets: KV v2 (kv/kv-v2.mdx "Read secret version"), leased secrets
 * (databases/index.mdx, system/leases.mdx), and what each failure status means for the cache.
 */
class OpenBaoSecretsTest extends OpenBaoTestBase {

    private int reads(String path) {
        return bao.server().findAll(getRequestedFor(urlPathEqualTo("/v1/" + path))).size();
    }

    @Test
    void kvV2FieldIsSelectedWithItsVersionAndABoundedLifetime() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 7);
        source(settings(OpenBaoSettings.AuthMethod.KUBERNETES, "", Duration.ofSeconds(90)));

        Instant before = Instant.now();
        SecretLease lease = source.fetch(KV_REF);

        assertEquals(SECRET, lease.secret().reveal());
        assertEquals("7", lease.version());
        assertFalse(lease.expiresAt().isBefore(before.plusSeconds(90)));
        assertFalse(lease.expiresAt().isAfter(Instant.now().plusSeconds(90)), "a KV value is kept kvTtl at most");
    }

    @Test
    void aKvValueNeverOutlivesTheTokenThatReadIt() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 60, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        SecretLease lease = kubernetesSource().fetch(KV_REF);
        assertFalse(lease.expiresAt().isAfter(Instant.now().plusSeconds(60)), "bounded by the 60 s token, not the 5 min kvTtl");
    }

    @Test
    void aMissingFieldIsNamedButNoValueIsShown() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        kubernetesSource();

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class,
                () -> source.fetch(SecretRef.parse("openbao:" + KV_PATH + "#apikey")));

        assertTrue(e.getMessage().contains("\"apikey\"") && e.getMessage().contains(KV_PATH), e.getMessage());
        assertTrue(e.getMessage().contains("api_key"), "the fields that are there help: " + e.getMessage());
        assertFalse(e.getMessage().contains(SECRET));
        assertFalse(e.revoked());
    }

    @Test
    void aLeasedSecretIsRenewedOnRefreshInsteadOfReadAgain() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.leasedRead("database/creds/readonly", LEASE, 60, true, DB_PASSWORD);
        bao.leaseRenew(LEASE, 60);
        kubernetesSource();

        SecretLease first = source.fetch(DB_REF);
        assertEquals(DB_PASSWORD, first.secret().reveal());
        assertFalse(first.expiresAt().isAfter(Instant.now().plusSeconds(60)));
        assertNull(first.version(), "no lease id in the version (it could be used to revoke)");

        SecretLease second = source.fetch(DB_REF);

        assertEquals(DB_PASSWORD, second.secret().reveal());
        assertEquals(1, reads("database/creds/readonly"), "renewed, not read again");
        bao.server().verify(postRequestedFor(urlEqualTo("/v1/sys/leases/renew/" + LEASE))
                .withHeader("X-Vault-Token", equalTo(TOKEN_1))
                .withRequestBody(matchingJsonPath("$.increment", equalTo("60"))));
    }

    @Test
    void closeRevokesEveryLeaseItHolds() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.leasedRead("database/creds/readonly", LEASE, 60, true, DB_PASSWORD);
        bao.leaseRevoke();
        kubernetesSource().fetch(DB_REF);

        source.close();

        bao.server().verify(postRequestedFor(urlEqualTo("/v1/sys/leases/revoke"))
                .withHeader("X-Vault-Token", equalTo(TOKEN_1))
                .withRequestBody(matchingJsonPath("$.lease_id", equalTo(LEASE))));
    }

    @Test
    void aLeaseRevokedBeforeItsExpiryIsNeverReadAgain() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.leasedRead("database/creds/readonly", LEASE, 60, true, DB_PASSWORD);
        bao.error("/v1/sys/leases/renew/" + LEASE, 400, "error-lease-not-renewable.json");
        kubernetesSource().fetch(DB_REF);

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(DB_REF));
        assertTrue(e.revoked(), "the cached value must go at once");
        assertTrue(e.getMessage().contains("revoked"), e.getMessage());
        assertThrows(SecretUnavailableException.class, () -> source.fetch(DB_REF));
        assertEquals(1, reads("database/creds/readonly"), "revoking the lease is the kill switch: no new lease");
    }

    @Test
    void a403OnTheSecretDropsTheValueButKeepsAValidToken() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.error("/v1/" + KV_PATH, 403, "error-permission-denied.json");
        bao.lookupSelf(TOKEN_1, 3500, true);
        kubernetesSource();

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF));
        assertTrue(e.revoked());
        assertTrue(e.getMessage().contains("403"), e.getMessage());

        bao.kvRead(KV_PATH, "api_key", SECRET, 1); // the policy allows it again
        assertEquals(SECRET, source.fetch(KV_REF).secret().reveal());
        assertEquals(1, bao.server().findAll(postRequestedFor(urlEqualTo("/v1/auth/kubernetes/login"))).size());
    }

    @Test
    void aRevokedTokenStopsEveryFetchAndIsNotReplacedByANewLogin() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.error("/v1/" + KV_PATH, 403, "error-permission-denied.json");
        bao.error("/v1/auth/token/lookup-self", 403, "error-permission-denied.json");
        kubernetesSource();

        assertTrue(assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF)).revoked());
        SecretUnavailableException later = assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF));

        assertTrue(later.revoked());
        assertTrue(later.getMessage().contains("was revoked"), later.getMessage());
        assertEquals(1, bao.server().findAll(postRequestedFor(urlEqualTo("/v1/auth/kubernetes/login"))).size(),
                "no new login after a revocation");
    }

    @Test
    void sealedIsUnavailableButNotRevoked() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.error("/v1/" + KV_PATH, 503, "error-sealed.json");
        kubernetesSource();

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF));
        assertFalse(e.revoked());
        assertTrue(e.getMessage().contains("503") && e.getMessage().contains("sealed"), e.getMessage());
    }

    @Test
    void unreachableIsUnavailableButNotRevoked() throws Exception {
        kubernetesSource();
        bao.stop();

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF));
        assertFalse(e.revoked());
        assertTrue(e.getMessage().contains("unreachable"), e.getMessage());
    }
}
