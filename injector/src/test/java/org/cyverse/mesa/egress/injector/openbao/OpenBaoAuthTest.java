package org.cyverse.mesa.egress.injector.openbao;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
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

import java.nio.file.Files;
import java.time.Duration;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.junit.jupiter.api.Test;

/**
 * Each auth method against a fake OpenBao whose answers follow OpenBao's API docs (fixtures:
 * resources/openbao/README.md names the page of each): what the proxy sends where, and which
 * token it then uses.
 */
class OpenBaoAuthTest extends OpenBaoTestBase {

    @Test
    void kubernetesLogsInWithRoleAndJwtAndRereadsTheJwtFileAtTheNextLogin() throws Exception {
        // auth/kubernetes/login: api-docs/auth/kubernetes.mdx "Login"; not renewable, so the keeper logs in again at 2/3 of 3 s.
        bao.kubernetesLogin("kubernetes", TOKEN_1, 3, false);
        bao.kvRead(KV_PATH, "api_key", SECRET, 2);
        source(settings(OpenBaoSettings.AuthMethod.KUBERNETES, "vice/ns1", Duration.ofMinutes(5)));

        SecretLease lease = source.fetch(KV_REF);

        assertEquals(SECRET, lease.secret().reveal());
        bao.server().verify(postRequestedFor(urlEqualTo("/v1/auth/kubernetes/login"))
                .withHeader("X-Vault-Namespace", equalTo("vice/ns1"))
                .withHeader("X-Vault-Token", absent())
                .withRequestBody(matchingJsonPath("$.role", equalTo("vice-analysis")))
                .withRequestBody(matchingJsonPath("$.jwt", equalTo(JWT_1))));
        bao.server().verify(getRequestedFor(urlPathEqualTo("/v1/" + KV_PATH))
                .withHeader("X-Vault-Token", equalTo(TOKEN_1))
                .withHeader("X-Vault-Namespace", equalTo("vice/ns1")));

        Files.writeString(dir.resolve("jwt"), JWT_2); // the kubelet rotated the projected token
        await("a second login with the rotated JWT", 8, () -> !bao.server().findAll(postRequestedFor(urlEqualTo("/v1/auth/kubernetes/login"))
                .withRequestBody(matchingJsonPath("$.jwt", equalTo(JWT_2)))).isEmpty());
    }

    @Test
    void jwtLogsInAtItsOwnMount() throws Exception {
        // auth/<mount>/login for jwt: api-docs/auth/jwt.mdx "JWT login".
        bao.jwtLogin("keycloak", TOKEN_1, 900, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        source(settings(OpenBaoSettings.AuthMethod.JWT, "", Duration.ofMinutes(5)));

        assertEquals(SECRET, source.fetch(KV_REF).secret().reveal());
        bao.server().verify(postRequestedFor(urlEqualTo("/v1/auth/keycloak/login"))
                .withHeader("X-Vault-Namespace", absent())
                .withRequestBody(matchingJsonPath("$.jwt", equalTo(JWT_1)))
                .withRequestBody(matchingJsonPath("$.role", equalTo("vice-analysis"))));
        bao.server().verify(getRequestedFor(urlPathEqualTo("/v1/" + KV_PATH)).withHeader("X-Vault-Token", equalTo(TOKEN_1)));
    }

    @Test
    void tokenFileIsLookedUpAndReadAgainWhenTheAgentRewritesIt() throws Exception {
        // auth/token/lookup-self: api-docs/auth/token.mdx "Lookup a token (Self)".
        bao.lookupSelf(TOKEN_1, 3600, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        source(settings(OpenBaoSettings.AuthMethod.TOKEN, "", Duration.ofMinutes(5)));

        source.fetch(KV_REF);
        bao.server().verify(getRequestedFor(urlEqualTo("/v1/auth/token/lookup-self")).withHeader("X-Vault-Token", equalTo(TOKEN_1)));
        bao.server().verify(getRequestedFor(urlPathEqualTo("/v1/" + KV_PATH)).withHeader("X-Vault-Token", equalTo(TOKEN_1)));

        Files.writeString(dir.resolve("token"), TOKEN_2 + "\n");
        bao.lookupSelf(TOKEN_2, 3600, true);
        source.fetch(KV_REF);
        bao.server().verify(getRequestedFor(urlEqualTo("/v1/auth/token/lookup-self")).withHeader("X-Vault-Token", equalTo(TOKEN_2)));
        bao.server().verify(getRequestedFor(urlPathEqualTo("/v1/" + KV_PATH)).withHeader("X-Vault-Token", equalTo(TOKEN_2)));
    }

    @Test
    void wrappedTokenIsLookedUpUnauthenticatedThenUnwrappedWithTheWrappingTokenAsHeaderOnly() throws Exception {
        // sys/wrapping/lookup and sys/wrapping/unwrap: api-docs/system/wrapping-lookup.mdx, wrapping-unwrap.mdx.
        bao.wrappingLookup("auth/token/create");
        bao.unwrap(TOKEN_1, 3600, true);
        bao.kvRead(KV_PATH, "api_key", SECRET, 1);
        source(settings(OpenBaoSettings.AuthMethod.WRAPPED, "", Duration.ofMinutes(5)));

        assertEquals(SECRET, source.fetch(KV_REF).secret().reveal());
        bao.server().verify(postRequestedFor(urlEqualTo("/v1/sys/wrapping/lookup"))
                .withHeader("X-Vault-Token", absent())
                .withRequestBody(matchingJsonPath("$.token", equalTo(WRAPPING))));
        var unwraps = bao.server().findAll(postRequestedFor(urlEqualTo("/v1/sys/wrapping/unwrap")));
        assertEquals(1, unwraps.size());
        assertEquals(WRAPPING, unwraps.get(0).getHeader("X-Vault-Token"));
        assertFalse(unwraps.get(0).getBodyAsString().contains(WRAPPING), "the wrapping token must not also be in the body");
        bao.server().verify(getRequestedFor(urlPathEqualTo("/v1/" + KV_PATH)).withHeader("X-Vault-Token", equalTo(TOKEN_1)));
    }

    @Test
    void wrappedTokenFromAnUnexpectedCreationPathIsRefusedUnopened() throws Exception {
        // The docs' own sample creation_path, sys/wrapping/wrap, is what a re-wrapped copy shows.
        bao.wrappingLookup("sys/wrapping/wrap");
        bao.unwrap(TOKEN_1, 3600, true);
        source(settings(OpenBaoSettings.AuthMethod.WRAPPED, "", Duration.ofMinutes(5)));

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF));

        assertTrue(e.getMessage().contains("sys/wrapping/wrap") && e.getMessage().contains("refused"), e.getMessage());
        assertEquals(0, bao.server().findAll(postRequestedFor(urlEqualTo("/v1/sys/wrapping/unwrap"))).size(), "never unwrapped");
    }

    @Test
    void anAlreadyUnwrappedTokenIsAClearErrorThatMentionsInterception() throws Exception {
        // OpenBao answers 400 {"errors":["wrapping token is not valid or does not exist"]} (fixture README).
        bao.error("/v1/sys/wrapping/lookup", 400, "error-invalid-wrapping-token.json");
        source(settings(OpenBaoSettings.AuthMethod.WRAPPED, "", Duration.ofMinutes(5)));

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF));
        assertTrue(e.getMessage().contains("already unwrapped") && e.getMessage().contains("intercepted"), e.getMessage());
        assertFalse(e.revoked());

        SecretUnavailableException again = assertThrows(SecretUnavailableException.class, () -> source.fetch(KV_REF));
        assertTrue(again.getMessage().contains("already used"), again.getMessage());
        assertEquals(1, bao.server().findAll(postRequestedFor(urlEqualTo("/v1/sys/wrapping/lookup"))).size(),
                "a token known to be spent is not looked up again");
        assertEquals(0, bao.server().findAll(postRequestedFor(urlEqualTo("/v1/sys/wrapping/unwrap"))).size());
    }
}
