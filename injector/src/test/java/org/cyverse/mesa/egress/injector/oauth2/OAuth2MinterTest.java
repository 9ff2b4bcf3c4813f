package org.cyverse.mesa.egress.injector.oauth2;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.cyverse.mesa.egress.injector.MintContext;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.cyverse.mesa.egress.injector.SecretValues;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OAuth2Minter} against a token endpoint played by WireMock on loopback, its answers shaped
 * as RFC 6749 section 5.1 (success: {@code access_token}, {@code token_type}, {@code expires_in},
 * {@code refresh_token}) and 5.2 (error: {@code error}, {@code error_description}), RFC 8693
 * section 2.2 (token exchange), RFC 7523 sections 2.1 and 2.2 (JWT bearer grant and client
 * assertion), RFC 7009 (revocation) and OpenID Connect Discovery 1.0 section 4 as Keycloak 26
 * answers them. The real Keycloak plays the grants it offers in proxy-core's OAuth2KeycloakTest;
 * this class covers what that one cannot make happen on demand (a skewed clock, a DPoP answer, an
 * impersonating discovery document, the RFC 7523 grant).
 */
class OAuth2MinterTest {

    private static final String CLIENT = "mesa-agent-proxy";
    private static final String CLIENT_SECRET = "kc-client-secret-3f9a";

    @TempDir
    Path dir;

    private WireMockServer server;
    private KeyPair issuerKey;

    @BeforeEach
    void start() throws Exception {
        server = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort());
        server.start();
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        issuerKey = generator.generateKeyPair();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void aRotatedRefreshTokenReplacesTheOldOneAtOnceEvenAcrossAReloadedMinter() throws Exception {
        Path refresh = write("offline", "R0");
        answers("R0", jwt(300), "R1");
        answers("R1", jwt(300), "R2");
        answers("R2", jwt(300), "R3");
        OAuth2Spec spec = spec(Grant.REFRESH_TOKEN, ClientAuth.CLIENT_SECRET_BASIC, refresh, null, null);

        OAuth2Minter minter = minter(spec);
        SecretLease first = minter.mint(null);
        SecretLease second = minter.mint(first);
        // A reloaded config makes a new minter for the same credential: it goes on from R2, never
        // from R0 (which Keycloak revoked when it answered R1).
        SecretLease third = minter(spec).mint(second);

        assertEquals(List.of("R0", "R1", "R2"), sentForms().stream().map(f -> f.get("refresh_token")).toList());
        assertFalse(first.secret().equals(second.secret()));
        assertEquals(Secret.of("R3"), third.parts().get(OAuth2Minter.REFRESH_TOKEN).secret(), "the newest refresh token is a needle");
        String basic = "Basic " + Base64.getEncoder().encodeToString((CLIENT + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
        server.findAll(postRequestedFor(urlEqualTo("/token"))).forEach(r -> assertEquals(basic, r.getHeader("Authorization")));
        assertEquals(Map.of("grant_type", "refresh_token", "refresh_token", "R0"), sentForms().get(0), "only the grant's own fields");
    }

    @Test
    void anOperatorsNewRefreshTokenWinsOverTheRotatedOne() throws Exception {
        Path refresh = write("offline", "R0");
        answers("R0", jwt(300), "R1");
        answers("N0", jwt(300), "N1");
        OAuth2Minter minter = minter(spec(Grant.REFRESH_TOKEN, ClientAuth.CLIENT_SECRET_BASIC, refresh, null, null));
        minter.mint(null);

        Files.writeString(refresh, "N0\n"); // the user signed in again; the launcher wrote the new offline token
        minter.mint(null);

        assertEquals(List.of("R0", "N0"), sentForms().stream().map(f -> f.get("refresh_token")).toList());
    }

    @Test
    void invalidGrantDropsTheTokenAndSaysTheSessionEnded() throws Exception {
        Path refresh = write("offline", "R-revoked-9c1e");
        server.stubFor(post("/token").willReturn(aResponse().withStatus(400).withHeader("Content-Type", "application/json")
                .withBody("{\"error\":\"invalid_grant\",\"error_description\":\"Token is not active\"}")));

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class,
                () -> minter(spec(Grant.REFRESH_TOKEN, ClientAuth.CLIENT_SECRET_BASIC, refresh, null, null)).mint(null));

        assertTrue(e.revoked(), "the store drops a still-valid token at once: the user's session is gone");
        assertTrue(e.getMessage().contains("answered 400 invalid_grant (\"Token is not active\")"), e.getMessage());
        assertTrue(e.getMessage().contains("the user's session was revoked or expired"), e.getMessage());
        assertFalse(e.getMessage().contains("R-revoked-9c1e") || e.getMessage().contains(CLIENT_SECRET), e.getMessage());
    }

    @Test
    void aServerErrorIsRetriedNotRevoked() throws Exception {
        server.stubFor(post("/token").willReturn(aResponse().withStatus(503).withBody("<html>upstream down</html>")));

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class,
                () -> minter(spec(Grant.CLIENT_CREDENTIALS, ClientAuth.CLIENT_SECRET_BASIC, null, null, null)).mint(null));

        assertFalse(e.revoked());
        assertTrue(e.getMessage().contains("answered 503: the issuer failed"), e.getMessage());
    }

    @Test
    void tokenExchangeAsksForOneAudienceWithTheSubjectToken() throws Exception {
        String subject = jwt(600);
        Path subjectFile = write("kc-token", subject);
        String access = jwt(300);
        server.stubFor(post("/token").willReturn(json("{\"access_token\":\"" + access + "\",\"token_type\":\"Bearer\",\"expires_in\":300,"
                + "\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"}")));

        SecretLease lease = minter(spec(Grant.TOKEN_EXCHANGE, ClientAuth.CLIENT_SECRET_POST, null, subjectFile, "de")).mint(null);

        Map<String, String> form = sentForms().get(0);
        assertEquals("urn:ietf:params:oauth:grant-type:token-exchange", form.get("grant_type"));
        assertEquals(subject, form.get("subject_token"));
        assertEquals(OAuth2Spec.JWT_TOKEN_TYPE, form.get("subject_token_type"));
        assertEquals("urn:ietf:params:oauth:token-type:access_token", form.get("requested_token_type"));
        assertEquals("de", form.get("audience"));
        assertEquals(CLIENT, form.get("client_id"));
        assertEquals(CLIENT_SECRET, form.get("client_secret"));
        assertEquals(access, lease.secret().reveal());
        assertEquals(Secret.of(subject), lease.parts().get(OAuth2Minter.SUBJECT_TOKEN).secret(), "the subject token is a needle");
        assertEquals(Secret.of(CLIENT_SECRET), lease.parts().get(OAuth2Minter.CLIENT_SECRET).secret(), "and the client secret");
        assertEquals(access.substring(access.lastIndexOf('.') + 1), lease.parts().get("access_token" + OAuth2Minter.SIGNATURE).secret().reveal(),
                "a JWT's signature part alone is a needle");
        assertFalse(lease.values().stream().anyMatch(v -> v.reveal().equals(access.substring(0, access.indexOf('.')))),
                "never the header part: every token of the issuer shares it");
    }

    @Test
    void theSubjectMayBeAnotherCredentialsCurrentToken() throws Exception {
        String users = jwt(300);
        java.util.concurrent.atomic.AtomicReference<String> current = new java.util.concurrent.atomic.AtomicReference<>();
        SecretValues values = new SecretValues() {
            @Override
            public java.util.Optional<Secret> current(String credential) {
                return "kc-user".equals(credential) && current.get() != null ? java.util.Optional.of(Secret.of(current.get()))
                        : java.util.Optional.empty();
            }

            @Override
            public List<Secret> held(String credential) {
                return List.of();
            }

            @Override
            public long generation() {
                return 0;
            }

            @Override
            public String whyUnavailable(String credential) {
                return "token endpoint answered 400 invalid_grant";
            }
        };
        server.stubFor(post("/token").willReturn(json("{\"access_token\":\"A-de\",\"token_type\":\"Bearer\",\"expires_in\":300}")));
        OAuth2Spec spec = new OAuth2Spec(tokenUrl(), null, CLIENT, ClientAuth.CLIENT_SECRET_BASIC, ref(write("secret", CLIENT_SECRET)), null,
                Grant.TOKEN_EXCHANGE, null, null, "urn:ietf:params:oauth:token-type:access_token", "de", null, null, false, "kc-user");
        OAuth2Minter minter = new OAuth2Minter("cyverse-de", spec, context(() -> values));

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> minter.mint(null));
        assertTrue(e.getMessage().contains("its subject, credential kc-user, has no valid token now: token endpoint answered 400 invalid_grant"),
                e.getMessage());
        assertFalse(e.revoked(), "tried again: the subject may come back");

        current.set(users);
        minter.mint(null);
        assertEquals(users, sentForms().get(0).get("subject_token"));
        assertEquals("urn:ietf:params:oauth:token-type:access_token", sentForms().get(0).get("subject_token_type"));
    }

    @Test
    void jwtBearerGrantWithAPrivateKeyJwtClient() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair clientKey = generator.generateKeyPair();
        Path key = write("client.pem", "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(clientKey.getPrivate().getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        String assertion = jwt(120);
        Path assertionFile = write("assertion", assertion);
        server.stubFor(post("/token").willReturn(json("{\"access_token\":\"opaque-access-1\",\"token_type\":\"bearer\",\"expires_in\":300}")));
        OAuth2Spec spec = new OAuth2Spec(tokenUrl(), null, CLIENT, ClientAuth.PRIVATE_KEY_JWT, null, ref(key), Grant.JWT_BEARER, null,
                ref(assertionFile), null, null, null, null, false);

        SecretLease lease = minter(spec).mint(null);

        Map<String, String> form = sentForms().get(0);
        assertEquals("urn:ietf:params:oauth:grant-type:jwt-bearer", form.get("grant_type"));
        assertEquals(assertion, form.get("assertion"));
        assertEquals("urn:ietf:params:oauth:client-assertion-type:jwt-bearer", form.get("client_assertion_type"));
        SignedJWT clientAssertion = SignedJWT.parse(form.get("client_assertion"));
        assertTrue(clientAssertion.verify(new RSASSAVerifier((RSAPublicKey) clientKey.getPublic())), "signed with the client's key");
        JWTClaimsSet claims = clientAssertion.getJWTClaimsSet();
        assertEquals(CLIENT, claims.getIssuer());
        assertEquals(CLIENT, claims.getSubject());
        assertEquals(List.of(tokenUrl().toString()), claims.getAudience());
        assertNotNull(claims.getJWTID());
        assertTrue(claims.getExpirationTime().toInstant().isBefore(Instant.now().plusSeconds(61)));
        assertEquals("opaque-access-1", lease.secret().reveal(), "token_type is case-insensitive (RFC 6749 section 5.1)");
        assertFalse(server.findAll(postRequestedFor(urlEqualTo("/token"))).get(0).containsHeader("Authorization"));
    }

    @Test
    void aJwtsExpiryIsReadInTheIssuersClock() throws Exception {
        // The issuer's clock runs an hour ahead of ours; its token's exp is a minute after its own now.
        Instant theirs = Instant.now().plus(Duration.ofHours(1));
        String access = jwt(theirs.plusSeconds(60));
        server.stubFor(post("/token").willReturn(json("{\"access_token\":\"" + access + "\",\"token_type\":\"Bearer\",\"expires_in\":300}")
                .withHeader("Date", DateTimeFormatter.RFC_1123_DATE_TIME.format(theirs.atOffset(ZoneOffset.UTC)))));

        Instant before = Instant.now();
        SecretLease lease = minter(spec(Grant.CLIENT_CREDENTIALS, ClientAuth.CLIENT_SECRET_BASIC, null, null, null)).mint(null);

        // exp less the skew is a minute from now, earlier than expires_in's five; used until a tenth before that.
        Duration left = Duration.between(before, lease.expiresAt());
        assertTrue(left.compareTo(Duration.ofSeconds(50)) >= 0 && left.compareTo(Duration.ofSeconds(56)) <= 0, left.toString());
    }

    @Test
    void aDpopTokenIsRefused() throws Exception {
        server.stubFor(post("/token").willReturn(json("{\"access_token\":\"bound\",\"token_type\":\"DPoP\",\"expires_in\":300}")));

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class,
                () -> minter(spec(Grant.CLIENT_CREDENTIALS, ClientAuth.CLIENT_SECRET_BASIC, null, null, null)).mint(null));

        assertTrue(e.getMessage().contains("the proxy sends Bearer tokens only"), e.getMessage());
    }

    @Test
    void discoveryRefusesADocumentForAnotherIssuerAndFindsTheRevocationEndpoint() throws Exception {
        String issuer = "http://127.0.0.1:" + server.port() + "/realms/CyVerse";
        server.stubFor(get("/realms/CyVerse/.well-known/openid-configuration").willReturn(json("{\"issuer\":\"https://evil.example/realms/CyVerse\","
                + "\"token_endpoint\":\"http://127.0.0.1:" + server.port() + "/token\"}")));
        OAuth2Spec spec = new OAuth2Spec(null, URI.create(issuer), CLIENT, ClientAuth.CLIENT_SECRET_BASIC, ref(write("secret", CLIENT_SECRET)),
                null, Grant.CLIENT_CREDENTIALS, null, null, null, null, null, null, false);

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> minter(spec).mint(null));
        assertTrue(e.getMessage().contains("the document is for issuer \"https://evil.example/realms/CyVerse\""), e.getMessage());
        assertTrue(server.findAll(postRequestedFor(urlEqualTo("/token"))).isEmpty(), "no secret sent to an impersonated issuer's endpoint");

        server.stubFor(get("/realms/CyVerse/.well-known/openid-configuration").willReturn(json("{\"issuer\":\"" + issuer + "\","
                + "\"token_endpoint\":\"http://127.0.0.1:" + server.port() + "/token\","
                + "\"revocation_endpoint\":\"http://127.0.0.1:" + server.port() + "/revoke\"}")));
        server.stubFor(post("/token").willReturn(json("{\"access_token\":\"A-77\",\"token_type\":\"Bearer\",\"expires_in\":300}")));
        server.stubFor(post("/revoke").willReturn(aResponse().withStatus(200)));
        OAuth2Minter minter = minter(spec);
        SecretLease lease = minter.mint(null);
        assertTrue(minter.retires());
        minter.retire(lease);

        LoggedRequest revoke = server.findAll(postRequestedFor(urlEqualTo("/revoke"))).get(0);
        assertEquals(Map.of("token", "A-77", "token_type_hint", "access_token"), form(revoke));
    }

    @Test
    void aDiscoveredEndpointInClearTextElsewhereIsRefused() throws Exception {
        String issuer = "http://127.0.0.1:" + server.port() + "/realms/CyVerse";
        server.stubFor(get("/realms/CyVerse/.well-known/openid-configuration").willReturn(json("{\"issuer\":\"" + issuer + "\","
                + "\"token_endpoint\":\"http://kc.example.org/token\"}")));
        OAuth2Spec spec = new OAuth2Spec(null, URI.create(issuer), CLIENT, ClientAuth.CLIENT_SECRET_BASIC, ref(write("secret", CLIENT_SECRET)),
                null, Grant.CLIENT_CREDENTIALS, null, null, null, null, null, null, false);

        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> minter(spec).mint(null));

        assertTrue(e.getMessage().contains("token_endpoint http://kc.example.org/token is not https"), e.getMessage());
    }

    @Test
    void theRefreshTokenIsRevokedAtStopOnlyWhenTheOperatorSaysSo() throws Exception {
        server.stubFor(post("/revoke").willReturn(aResponse().withStatus(200)));
        answers("K0", jwt(300), "K1");
        Path refresh = write("offline", "K0");
        OAuth2Spec keep = new OAuth2Spec(tokenUrl(), null, CLIENT, ClientAuth.CLIENT_SECRET_BASIC, ref(write("secret", CLIENT_SECRET)), null,
                Grant.REFRESH_TOKEN, ref(refresh), null, null, null, null, URI.create("http://127.0.0.1:" + server.port() + "/revoke"), false);
        OAuth2Minter keeping = minter(keep);
        keeping.mint(null);
        keeping.end();
        assertTrue(server.findAll(postRequestedFor(urlEqualTo("/revoke"))).isEmpty(), "the user's offline session outlives the job by default");

        OAuth2Spec revoke = new OAuth2Spec(keep.tokenUrl(), null, CLIENT, ClientAuth.CLIENT_SECRET_BASIC, keep.clientSecret(), null,
                Grant.REFRESH_TOKEN, keep.refreshToken(), null, null, null, null, keep.revokeUrl(), true);
        minter(revoke).end();
        assertEquals(Map.of("token", "K1", "token_type_hint", "refresh_token"), form(server.findAll(postRequestedFor(urlEqualTo("/revoke"))).get(0)),
                "the newest refresh token, the one the server still honours");
    }

    // --- fixtures

    private OAuth2Spec spec(Grant grant, ClientAuth auth, Path refresh, Path subject, String audience) throws Exception {
        return new OAuth2Spec(tokenUrl(), null, CLIENT, auth, ref(write("client-secret", CLIENT_SECRET)), null, grant,
                refresh == null ? null : ref(refresh), subject == null ? null : ref(subject),
                grant == Grant.TOKEN_EXCHANGE ? OAuth2Spec.JWT_TOKEN_TYPE : null, audience, null, null, false);
    }

    private OAuth2Minter minter(OAuth2Spec spec) {
        return new OAuth2Minter("cyverse-de", spec, context(() -> null));
    }

    private static MintContext context(java.util.function.Supplier<SecretValues> values) {
        return new MintContext(ref -> {
            try {
                return Secret.of(Files.readString(Path.of(ref.location())).trim());
            } catch (java.io.IOException e) {
                throw new SecretUnavailableException(ref + " cannot be read");
            }
        }, HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build(), Duration.ofSeconds(5), Clock.systemUTC(), values);
    }

    private URI tokenUrl() {
        return URI.create("http://127.0.0.1:" + server.port() + "/token");
    }

    /** A refresh with {@code refresh} answers {@code access} and the rotated {@code next} (Keycloak's shape). */
    private void answers(String refresh, String access, String next) {
        server.stubFor(post("/token").withRequestBody(containing("refresh_token=" + refresh + "&").or(containing("refresh_token=" + refresh)))
                .willReturn(json("{\"access_token\":\"" + access + "\",\"expires_in\":300,\"refresh_expires_in\":0,\"refresh_token\":\""
                        + next + "\",\"token_type\":\"Bearer\",\"not-before-policy\":0,\"session_state\":\"" + UUID.randomUUID()
                        + "\",\"scope\":\"openid offline_access\"}")));
    }

    private static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder json(String body) {
        return aResponse().withStatus(200).withHeader("Content-Type", "application/json").withBody(body);
    }

    private List<Map<String, String>> sentForms() {
        return server.findAll(postRequestedFor(urlPathEqualTo("/token"))).stream().map(OAuth2MinterTest::form).toList();
    }

    private static Map<String, String> form(LoggedRequest request) {
        Map<String, String> form = new LinkedHashMap<>();
        for (String pair : request.getBodyAsString().split("&")) {
            int eq = pair.indexOf('=');
            form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return form;
    }

    private String jwt(long secondsLeft) throws Exception {
        return jwt(Instant.now().plusSeconds(secondsLeft));
    }

    private String jwt(Instant exp) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), new JWTClaimsSet.Builder().issuer("kc").subject("alice")
                .jwtID(UUID.randomUUID().toString()).expirationTime(Date.from(exp)).build());
        jwt.sign(new RSASSASigner(issuerKey.getPrivate()));
        return jwt.serialize();
    }

    private Path write(String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, content + "\n");
        return file;
    }

    private static SecretRef ref(Path file) {
        return SecretRef.parse("file:" + file);
    }
}
