package org.cyverse.mesa.egress.injector.openbao;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Map;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.junit.jupiter.api.Test;

/**
 * Temporary AWS credentials from OpenBao's AWS secrets engine ({@code aws/creds/ROLE}, fixture
 * aws-creds-read.json from openbao-plugins' secrets/aws): every read mints a new key id, secret key
 * and session token, so the three must come from one read and be replaced together.
 */
class OpenBaoAwsEngineTest extends OpenBaoTestBase {

    static final String PATH = "aws/creds/osn";
    static final SecretRef SECRET_KEY = SecretRef.parse("openbao:" + PATH + "#secret_key");
    static final Map<String, SecretRef> PARTS = Map.of("access_key_id", SecretRef.parse("openbao:" + PATH + "#access_key"),
            "session_token", SecretRef.parse("openbao:" + PATH + "#security_token"));
    static final FakeOpenBao.AwsCreds FIRST = new FakeOpenBao.AwsCreds(PATH + "/b1xYJ3oRj0pGwBmYyXb2RTsy", "ASIAFIRSTISSUE000001",
            "firstSecretKey/0123456789abcdefghijklmnopqrs", "IQoJb3JpZ2luX2VjFIRSTsessionTOKEN0123456789");
    static final FakeOpenBao.AwsCreds SECOND = new FakeOpenBao.AwsCreds(PATH + "/Ve2cQ9s7aHn0lbnN2mRZTDsk", "ASIASECONDISSUE00002",
            "secondSecretKey/0123456789abcdefghijklmnopq", "IQoJb3JpZ2luX2VjSECONDsessionTOKEN012345678");

    private int reads() {
        return bao.server().findAll(getRequestedFor(urlPathEqualTo("/v1/" + PATH))).size();
    }

    @Test
    void theKeyIdSecretAndSessionTokenComeFromOneReadWithItsLease() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.awsCreds(PATH, 900, FIRST, SECOND);
        kubernetesSource();

        SecretLease lease = source.fetch(SECRET_KEY, PARTS);

        assertEquals(1, reads(), "one read: a second would have minted another key pair");
        assertEquals(FIRST.secretKey(), lease.secret().reveal());
        assertEquals(FIRST.accessKey(), lease.part("access_key_id").orElseThrow().reveal());
        assertEquals(FIRST.securityToken(), lease.part("session_token").orElseThrow().reveal());
        assertFalse(lease.expiresAt().isAfter(Instant.now().plusSeconds(900)), "the STS expiry bounds the lease");
        assertEquals(lease.expiresAt(), lease.parts().get("session_token").expiresAt(), "the parts expire with it");
        logs.assertNoneOf(FIRST.secretKey(), FIRST.securityToken());
    }

    @Test
    void aRefreshOfCredentialsThatCannotBeRenewedReplacesAllThreeTogether() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.awsCreds(PATH, 900, FIRST, SECOND);
        bao.leaseRevoke();
        kubernetesSource();

        source.fetch(SECRET_KEY, PARTS);
        SecretLease second = source.fetch(SECRET_KEY, PARTS);

        assertEquals(2, reads(), "STS credentials are not renewable: a refresh is a new read");
        assertEquals(SECOND.secretKey(), second.secret().reveal());
        assertEquals(SECOND.accessKey(), second.part("access_key_id").orElseThrow().reveal(), "never the first key id with the second secret");
        assertEquals(SECOND.securityToken(), second.part("session_token").orElseThrow().reveal());

        source.close();
        for (FakeOpenBao.AwsCreds issued : new FakeOpenBao.AwsCreds[] {FIRST, SECOND}) {
            bao.server().verify(postRequestedFor(urlEqualTo("/v1/sys/leases/revoke")).withHeader("X-Vault-Token", equalTo(TOKEN_1))
                    .withRequestBody(matchingJsonPath("$.lease_id", equalTo(issued.leaseId()))));
        }
        logs.assertNoneOf(FIRST.secretKey(), FIRST.securityToken(), SECOND.secretKey(), SECOND.securityToken());
    }

    @Test
    void anIamUserRoleHasNoSessionTokenAndSaysSoWithoutShowingTheKey() throws Exception {
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3600, true);
        bao.awsCreds(PATH, 900, new FakeOpenBao.AwsCreds(PATH + "/iamUser0000000000000000", "AKIAIAMUSERISSUE0001",
                "iamUserSecretKey/0123456789abcdefghijklmnop", null));
        kubernetesSource();

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(SECRET_KEY, PARTS));

        assertTrue(e.getMessage().contains("\"security_token\"") && e.getMessage().contains("null"), e.getMessage());
        assertFalse(e.getMessage().contains("iamUserSecretKey"), e.getMessage());
        assertFalse(e.revoked());
        SecretLease withoutToken = source.fetch(SECRET_KEY, Map.of("access_key_id", PARTS.get("access_key_id")));
        assertEquals("AKIAIAMUSERISSUE0001", withoutToken.part("access_key_id").orElseThrow().reveal(),
                "without session_token the same role serves a long-lived pair");
    }
}
