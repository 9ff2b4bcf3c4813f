package org.cyverse.mesa.egress.testkit;

import static org.cyverse.mesa.egress.testkit.Keycloak.ALICE;
import static org.cyverse.mesa.egress.testkit.Keycloak.ALICE_AT_LAUNCHER;
import static org.cyverse.mesa.egress.testkit.Keycloak.ALICE_PASSWORD;
import static org.cyverse.mesa.egress.testkit.Keycloak.BOB;
import static org.cyverse.mesa.egress.testkit.Keycloak.BOB_PASSWORD;
import static org.cyverse.mesa.egress.testkit.Keycloak.DATA;
import static org.cyverse.mesa.egress.testkit.Keycloak.DE;
import static org.cyverse.mesa.egress.testkit.Keycloak.LAUNCHER_CLIENT;
import static org.cyverse.mesa.egress.testkit.Keycloak.PROXY_CLIENT;
import static org.cyverse.mesa.egress.testkit.Keycloak.PROXY_SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jwt.JWTClaimsSet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.testkit.BearerCheckingUpstream.Reason;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Keycloak harness against the real Keycloak: the realm behaves as the {@code oauth2}
 * credential kind's tests will rely on (lifespan, rotation, audiences of exchanged tokens, logout),
 * and {@link BearerCheckingUpstream} accepts exactly the tokens a CyVerse service would.
 */
class KeycloakHarnessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Keycloak keycloak;
    private static BearerCheckingUpstream de;
    private static BearerCheckingUpstream data;
    private static HttpClient client;

    @BeforeAll
    @Timeout(Keycloak.START_SECONDS + 30)
    static void start() throws Exception {
        keycloak = Keycloak.shared();
        TestPki pki = new TestPki("resource servers");
        de = BearerCheckingUpstream.of(pki.serverContext("localhost"), keycloak, DE);
        data = BearerCheckingUpstream.of(pki.serverContext("localhost"), keycloak, DATA);
        client = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).sslContext(TestPki.trusting(pki.ca())).build();
    }

    @AfterAll
    static void stop() {
        de.close();
        data.close();
    }

    @Test
    void startsOnceAndSaysHowLongItTook() {
        assertTrue(keycloak.startTime().compareTo(Duration.ZERO) > 0);
        assertTrue(keycloak.startTime().getSeconds() < Keycloak.START_SECONDS, "start took " + keycloak.startTime());
        assertTrue(keycloak.version().contains("26."), keycloak.version());
        assertTrue(keycloak.issuer().startsWith("http://127.0.0.1:"), keycloak.issuer());
        assertEquals(keycloak, Keycloak.shared(), "one Keycloak per JVM");
    }

    @Test
    void passwordGrantGivesAccessAndRefreshTokensLivingTheRealmsLifespan() {
        TokenAnswer answer = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null);

        assertTrue(answer.ok(), answer.toString());
        assertNotNull(answer.refreshToken());
        int lifespan = Keycloak.accessTokenLifespan();
        assertTrue(lifespan >= 10 && lifespan <= 15, "three lifetimes fit in a minute: " + lifespan);
        assertEquals(lifespan, answer.expiresIn());
        JWTClaimsSet claims = answer.accessClaims();
        assertEquals(lifespan, (claims.getExpirationTime().getTime() - claims.getIssueTime().getTime()) / 1000);
        assertEquals(keycloak.issuer(), claims.getIssuer());
        assertEquals(PROXY_CLIENT, claims.getClaim("azp"));
        assertEquals("alice", claims.getClaim("preferred_username"));
        // A plain token of the proxy's client names both services (the client's hardcoded audiences, in no fixed order).
        assertEquals(Set.of(DE, DATA), Set.copyOf(claims.getAudience()));
    }

    @Test
    void refreshRotatesTheRefreshTokenAndTheOldOneIsRefused() {
        TokenAnswer first = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null);
        TokenAnswer second = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, first.refreshToken());

        assertTrue(second.ok(), second.toString());
        assertNotEquals(first.refreshToken(), second.refreshToken());
        assertEquals(Set.of(DE, DATA), Set.copyOf(second.accessClaims().getAudience()));
        TokenAnswer reuse = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, first.refreshToken());
        assertEquals(400, reuse.status());
        assertEquals("invalid_grant", reuse.error(), reuse.toString());
        // Keycloak treats the reuse as theft: the newest refresh token dies with it.
        TokenAnswer after = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, second.refreshToken());
        assertEquals("invalid_grant", after.error(), after.toString());
    }

    @Test
    void exchangedTokenIsForOneServiceOnly() throws Exception {
        TokenAnswer alice = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null);
        TokenAnswer forDe = keycloak.tokenExchange(PROXY_CLIENT, PROXY_SECRET, alice.accessToken(), DE);

        assertTrue(forDe.ok(), forDe.toString());
        assertNull(forDe.refreshToken(), "standard token exchange gives an access token only");
        assertEquals(Keycloak.TOKEN_TYPE_ACCESS, forDe.text("issued_token_type"));
        assertEquals(List.of(DE), forDe.accessClaims().getAudience());
        assertEquals(alice.accessClaims().getSubject(), forDe.accessClaims().getSubject());

        HttpResponse<String> atDe = get(de, "/api/apps", forDe.accessToken());
        assertEquals(200, atDe.statusCode(), atDe.body());
        JsonNode who = JSON.readTree(atDe.body());
        assertEquals(alice.accessClaims().getSubject(), who.path("sub").asText());
        assertEquals(PROXY_CLIENT, who.path("azp").asText());
        assertEquals("/api/apps", who.path("path").asText());

        HttpResponse<String> atData = get(data, "/files/x", forDe.accessToken());
        assertEquals(401, atData.statusCode());
        assertEquals("wrong_audience", JSON.readTree(atData.body()).path("reason").asText(), atData.body());
        String challenge = atData.headers().firstValue("WWW-Authenticate").orElseThrow();
        assertTrue(challenge.startsWith("Bearer ") && challenge.contains("error=\"invalid_token\"")
                && challenge.contains("error_description=\"not for this audience\""), challenge);
        BearerCheckingUpstream.Seen refused = last(data);
        assertFalse(refused.accepted());
        assertEquals(Reason.WRONG_AUDIENCE, refused.reason());
        assertEquals(forDe.accessClaims().getJWTID(), refused.jti());
        assertTrue(last(de).accepted());

        // The client does not allow a refresh token from the exchange (Keycloak's default).
        TokenAnswer withRefresh = keycloak.tokenRequest(Map.of("client_id", PROXY_CLIENT, "client_secret", PROXY_SECRET,
                "grant_type", Keycloak.GRANT_TOKEN_EXCHANGE, "subject_token", alice.accessToken(),
                "subject_token_type", Keycloak.TOKEN_TYPE_ACCESS, "audience", DE,
                "requested_token_type", "urn:ietf:params:oauth:token-type:refresh_token"));
        assertEquals("invalid_request", withRefresh.error(), withRefresh.toString());

        TokenAnswer forData = keycloak.tokenExchange(PROXY_CLIENT, PROXY_SECRET, alice.accessToken(), DATA);
        assertEquals(List.of(DATA), forData.accessClaims().getAudience());
        assertEquals(200, get(data, "/files", forData.accessToken()).statusCode());
    }

    @Test
    void exchangeNeedsTheProxyInTheSubjectTokensAudienceAndCannotAddAudiences() {
        // The launcher's token names the proxy in aud: the proxy may exchange it.
        TokenAnswer launcher = keycloak.passwordGrant(LAUNCHER_CLIENT, null, ALICE, ALICE_PASSWORD, null);
        assertEquals(List.of(PROXY_CLIENT), launcher.accessClaims().getAudience());
        TokenAnswer exchanged = keycloak.tokenExchange(PROXY_CLIENT, PROXY_SECRET, launcher.accessToken(), DATA);
        assertTrue(exchanged.ok(), exchanged.toString());
        assertEquals(List.of(DATA), exchanged.accessClaims().getAudience());
        assertEquals(PROXY_CLIENT, exchanged.accessClaims().getClaim("azp"));

        // The realm's own admin-cli issues tokens naming nobody: refused.
        TokenAnswer other = keycloak.passwordGrant("admin-cli", null, ALICE, ALICE_PASSWORD, null);
        assertTrue(other.ok(), other.toString());
        TokenAnswer refused = keycloak.tokenExchange(PROXY_CLIENT, PROXY_SECRET, other.accessToken(), DATA);
        assertEquals("access_denied", refused.error(), refused.toString());

        // audience filters what the client's scopes give; it adds nothing.
        TokenAnswer mine = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null);
        TokenAnswer added = keycloak.tokenExchange(PROXY_CLIENT, PROXY_SECRET, mine.accessToken(), LAUNCHER_CLIENT);
        assertEquals("invalid_request", added.error(), added.toString());
    }

    @Test
    void clientCredentialsGiveTheServiceAccountsToken() throws Exception {
        TokenAnswer answer = keycloak.clientCredentials(PROXY_CLIENT, PROXY_SECRET);

        assertTrue(answer.ok(), answer.toString());
        assertNull(answer.refreshToken());
        assertEquals(Keycloak.accessTokenLifespan(), answer.expiresIn());
        assertEquals("service-account-" + PROXY_CLIENT, answer.accessClaims().getClaim("preferred_username"));
        assertEquals(200, get(de, "/whoami", answer.accessToken()).statusCode());
        assertEquals(200, get(data, "/whoami", answer.accessToken()).statusCode());
        TokenAnswer wrongSecret = keycloak.clientCredentials(PROXY_CLIENT, "not-the-secret");
        assertEquals("unauthorized_client", wrongSecret.error(), wrongSecret.toString());
    }

    @Test
    void logoutEndsRefreshTokensAndOfflineTokensIssuedBeforeIt() throws Exception {
        TokenAnswer online = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null);
        TokenAnswer offline = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, "offline_access");
        assertTrue(offline.ok(), offline.toString());
        assertEquals("Offline", Keycloak.claims(offline.refreshToken()).getClaim("typ"));
        assertTrue(keycloak.sessions(ALICE) >= 1);
        assertEquals(1, keycloak.offlineSessions(ALICE, PROXY_CLIENT));
        // The logout sets alice's not-before to its second; tokens issued in that same second outlive it.
        awaitNextSecondAfter(Keycloak.claims(offline.refreshToken()).getIssueTime().toInstant());

        keycloak.logoutUser(ALICE);

        assertEquals(0, keycloak.sessions(ALICE));
        TokenAnswer refused = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, online.refreshToken());
        assertEquals("invalid_grant", refused.error(), refused.toString());
        // Keycloak 26.7 keeps the offline session, but its token predates the user's not-before: refused too.
        TokenAnswer stale = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, offline.refreshToken());
        assertEquals("invalid_grant", stale.error(), stale.toString());
        assertEquals("Stale token", stale.errorDescription());
        assertEquals(1, keycloak.offlineSessions(ALICE, PROXY_CLIENT));
        // alice logging in again gets a working token.
        TokenAnswer again = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null);
        assertTrue(keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, again.refreshToken()).ok());
    }

    @Test
    void revokingOfflineAccessEndsTheOfflineTokenOnly() {
        TokenAnswer online = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, BOB, BOB_PASSWORD, null);
        TokenAnswer offline = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, BOB, BOB_PASSWORD, "offline_access");
        TokenAnswer refreshed = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, offline.refreshToken());
        assertTrue(refreshed.ok(), refreshed.toString());
        assertEquals("Offline", Keycloak.claims(refreshed.refreshToken()).getClaim("typ"));

        keycloak.revokeOfflineAccess(BOB, PROXY_CLIENT);

        assertEquals(0, keycloak.offlineSessions(BOB, PROXY_CLIENT));
        TokenAnswer ended = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, refreshed.refreshToken());
        assertEquals("invalid_grant", ended.error(), ended.toString());
        TokenAnswer stillOnline = keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, online.refreshToken());
        assertTrue(stillOnline.ok(), stillOnline.toString());
    }

    @Test
    void revokedRefreshTokenIsRefused() {
        TokenAnswer bob = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, BOB, BOB_PASSWORD, null);

        assertEquals(200, keycloak.revoke(PROXY_CLIENT, PROXY_SECRET, bob.refreshToken(), "refresh_token"));

        assertEquals("invalid_grant", keycloak.refresh(PROXY_CLIENT, PROXY_SECRET, bob.refreshToken()).error());
    }

    @Test
    void jwtAuthorizationGrantGivesTheLinkedUsersTokenOnce() {
        String sub = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null).accessClaims().getSubject();
        String assertion = keycloak.assertion(ALICE_AT_LAUNCHER, Duration.ofMinutes(1));

        TokenAnswer answer = keycloak.jwtBearer(PROXY_CLIENT, PROXY_SECRET, assertion);

        assertTrue(answer.ok(), answer.toString());
        assertNull(answer.refreshToken(), "RFC 7523 grants give no refresh token");
        assertEquals(sub, answer.accessClaims().getSubject());
        assertEquals(Set.of(DE, DATA), Set.copyOf(answer.accessClaims().getAudience()));
        TokenAnswer replay = keycloak.jwtBearer(PROXY_CLIENT, PROXY_SECRET, assertion);
        assertEquals("invalid_grant", replay.error(), replay.toString());
        // The IdP's max allowed assertion expiration (300 s) bounds the assertion's age since iat, not exp - iat.
        Instant now = Instant.now();
        TokenAnswer old = keycloak.jwtBearer(PROXY_CLIENT, PROXY_SECRET,
                keycloak.assertion(ALICE_AT_LAUNCHER, now.minusSeconds(400), now.plusSeconds(60)));
        assertEquals("invalid_grant", old.error(), old.toString());
        TokenAnswer longLived = keycloak.jwtBearer(PROXY_CLIENT, PROXY_SECRET,
                keycloak.assertion(ALICE_AT_LAUNCHER, now, now.plus(Duration.ofHours(1))));
        assertTrue(longLived.ok(), longLived.toString());
        TokenAnswer stranger = keycloak.jwtBearer(PROXY_CLIENT, PROXY_SECRET, keycloak.assertion("nobody", Duration.ofMinutes(1)));
        assertEquals("invalid_grant", stranger.error(), stranger.toString());
    }

    @Test
    void upstreamStoresAndReadsFilesAndRefusesWhatIsNotAValidToken() throws Exception {
        String token = keycloak.tokenExchange(PROXY_CLIENT, PROXY_SECRET,
                keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null).accessToken(), DATA).accessToken();

        HttpResponse<String> put = client.send(request(data, "/files/notes.txt", token)
                .PUT(HttpRequest.BodyPublishers.ofString("hello from alice")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, put.statusCode(), put.body());
        HttpResponse<String> read = get(data, "/files/notes.txt", token);
        assertEquals(200, read.statusCode());
        assertEquals("hello from alice", read.body());
        assertEquals(404, get(data, "/files/absent", token).statusCode());

        HttpResponse<String> none = client.send(HttpRequest.newBuilder(url(data, "/files/notes.txt")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, none.statusCode());
        assertEquals("Bearer realm=\"data\"", none.headers().firstValue("WWW-Authenticate").orElseThrow(), "RFC 6750 3.1: no error without a token");
        assertEquals(Reason.MISSING, last(data).reason());

        String[] parts = token.split("\\.");
        String forged = parts[0] + "." + parts[1] + "." + (parts[2].startsWith("A") ? "B" : "A") + parts[2].substring(1);
        assertEquals(401, get(data, "/files/notes.txt", forged).statusCode());
        assertEquals(Reason.BAD_SIGNATURE, last(data).reason());

        String refreshToken = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, null).refreshToken();
        assertEquals(401, get(data, "/files/notes.txt", refreshToken).statusCode());
        assertEquals(Reason.BAD_SIGNATURE, last(data).reason(), "refresh tokens are HS512, for Keycloak alone");
        assertEquals(401, get(data, "/files/notes.txt", "not-a-jwt").statusCode());
        assertEquals(Reason.MALFORMED, last(data).reason());
    }

    @Test
    void upstreamRefusesTheTokenOnceItHasExpired() throws Exception {
        TokenAnswer answer = keycloak.tokenExchange(PROXY_CLIENT, PROXY_SECRET,
                keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, BOB, BOB_PASSWORD, null).accessToken(), DE);
        Instant exp = answer.accessClaims().getExpirationTime().toInstant();
        assertEquals(200, get(de, "/api/apps", answer.accessToken()).statusCode());

        // The test is about time passing: poll until the upstream refuses, within exp + leeway + slack.
        Instant deadline = exp.plusSeconds(BearerCheckingUpstream.LEEWAY_SECONDS + 5);
        HttpResponse<String> last;
        while (true) {
            last = get(de, "/api/apps", answer.accessToken());
            if (last.statusCode() != 200 || Instant.now().isAfter(deadline)) {
                break;
            }
            Thread.sleep(250);
        }
        Instant refusedAt = Instant.now();
        assertEquals(401, last.statusCode(), "still accepted at " + refusedAt + ", exp " + exp);
        assertEquals("expired", JSON.readTree(last.body()).path("reason").asText(), last.body());
        assertFalse(refusedAt.isBefore(exp), "refused at " + refusedAt + " before exp " + exp);
        assertTrue(refusedAt.isBefore(exp.plusSeconds(BearerCheckingUpstream.LEEWAY_SECONDS + 3)), "accepted until " + refusedAt + ", exp " + exp);
    }

    /** Waits (on the clock, a second at most) until the whole second after {@code t} has begun. */
    private static void awaitNextSecondAfter(Instant t) throws InterruptedException {
        Instant next = Instant.ofEpochSecond(t.getEpochSecond() + 1);
        while (Instant.now().isBefore(next)) {
            Thread.sleep(Math.max(1, Duration.between(Instant.now(), next).toMillis()));
        }
    }

    private static HttpRequest.Builder request(BearerCheckingUpstream upstream, String path, String token) {
        return HttpRequest.newBuilder(url(upstream, path)).header("Authorization", "Bearer " + token);
    }

    private static URI url(BearerCheckingUpstream upstream, String path) {
        return URI.create("https://localhost:" + upstream.port() + path);
    }

    private static HttpResponse<String> get(BearerCheckingUpstream upstream, String path, String token) throws Exception {
        return client.send(request(upstream, path, token).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static BearerCheckingUpstream.Seen last(BearerCheckingUpstream upstream) {
        List<BearerCheckingUpstream.Seen> seen = upstream.seen();
        return seen.get(seen.size() - 1);
    }
}
