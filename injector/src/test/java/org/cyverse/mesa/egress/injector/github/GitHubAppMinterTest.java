package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * The minter against WireMock playing GitHub's API ({@link FakeGitHub}; fixtures and their sources
 * in resources/github/README.md): the App JWT it sends is verified with the App's public key, the
 * body asks for the job's repositories and permissions, GitHub's refusals become messages that
 * name the problem and never the key, and retiring revokes with the token itself.
 */
class GitHubAppMinterTest {

    static final long INSTALLATION = 4242;
    static final String TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";

    @TempDir
    Path dir;
    FakeGitHub github;
    KeyPair appKey;
    HttpClient http;

    @BeforeEach
    void start() throws Exception {
        github = FakeGitHub.https(dir);
        github.account("acme");
        appKey = AppJwt.newAppKey();
        http = HttpClient.newBuilder().sslContext(FakeGitHubTest.trusting(github.caPem())).followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    @AfterEach
    void stop() {
        github.close();
    }

    GitHubAppMinter minter(String pem) {
        return minter(pem, Clock.systemUTC());
    }

    GitHubAppMinter minter(String pem, Clock clock) {
        Map<String, String> permissions = new LinkedHashMap<>();
        permissions.put("contents", "write");
        permissions.put("pull_requests", "write");
        GitHubAppSpec app = new GitHubAppSpec(URI.create(github.url()), "123456", SecretRef.parse("file:/run/app.pem"),
                INSTALLATION, List.of("acme/widgets", "acme/Gadgets"), permissions, new BranchRule(List.of("agent/job-17")), true);
        return new GitHubAppMinter("github", app, ref -> Secret.of(pem), http, Duration.ofSeconds(5), clock);
    }

    @Test
    void mintsWithAVerifiedAppJwtForTheJobsRepositoriesAndPermissions() throws Exception {
        github.mints(INSTALLATION, TOKEN);
        for (String pem : List.of(AppJwt.pkcs1Pem(appKey), AppJwt.pkcs8Pem(appKey))) {
            Instant before = Instant.now();
            SecretLease lease = minter(pem).mint(null);

            assertEquals(TOKEN, lease.secret().reveal());
            assertTrue(lease.expiresAt().isAfter(before.plus(Duration.ofMinutes(59))), "GitHub's expires_at: " + lease.expiresAt());
            var sent = github.requests("/app/installations/" + INSTALLATION + "/access_tokens");
            var request = sent.get(sent.size() - 1);
            AppJwt.Claims claims = AppJwt.verify(request.getHeader("Authorization"), (RSAPublicKey) appKey.getPublic());
            assertEquals("123456", claims.iss());
            assertTrue(Duration.between(claims.iat(), before).compareTo(Duration.ofSeconds(55)) >= 0, "iat 60 s in the past: " + claims);
            assertTrue(claims.lifetime().compareTo(Duration.ofMinutes(10)) <= 0, "at most 10 minutes, as GitHub requires: " + claims);
            assertEquals("application/vnd.github+json", request.getHeader("Accept"));
            assertEquals("2022-11-28", request.getHeader("X-GitHub-Api-Version"));
            assertEquals(new ObjectMapper().readTree("{\"repositories\":[\"widgets\",\"Gadgets\"],"
                    + "\"permissions\":{\"contents\":\"write\",\"pull_requests\":\"write\"}}"),
                    github.bodies("/app/installations/").get(sent.size() - 1));
        }
    }

    /** Issue 39: a pod whose clock runs fast (or slow) got 401 with a hint about the App id; GitHub's Date says the time. */
    @ParameterizedTest(name = "the pod's clock {0} s off")
    @ValueSource(ints = {300, -1200})
    void aPodClockOffIsCorrectedFromGitHubsDate(int offSeconds) throws Exception {
        github.mints(INSTALLATION, TOKEN);
        GitHubAppMinter minter = minter(AppJwt.pkcs1Pem(appKey), Clock.offset(Clock.systemUTC(), Duration.ofSeconds(offSeconds)));

        SecretLease lease = minter.mint(null);

        assertEquals(TOKEN, lease.secret().reveal());
        var sent = github.requests("/app/installations/" + INSTALLATION + "/access_tokens");
        assertEquals(2, sent.size(), "refused once for the JWT's times, then signed in GitHub's time");
        AppJwt.Claims corrected = AppJwt.verify(sent.get(1).getHeader("Authorization"), (RSAPublicKey) appKey.getPublic());
        Instant now = Instant.now();
        assertTrue(!corrected.iat().isAfter(now) && corrected.exp().isAfter(now) && !corrected.exp().isAfter(now.plusSeconds(600)),
                "the second JWT's times are good by GitHub's clock: " + corrected);
        // expires_at is GitHub's time: the lease says when it ends by the pod's clock.
        Duration left = Duration.between(Instant.now().plusSeconds(offSeconds), lease.expiresAt());
        assertTrue(left.compareTo(Duration.ofMinutes(58)) > 0 && left.compareTo(Duration.ofMinutes(61)) < 0, "by the pod's clock: " + left);
        assertTrue(lease.version().contains("signed in GitHub's time"), lease.version());

        minter.mint(lease);
        assertEquals(3, github.requests("/app/installations/" + INSTALLATION + "/access_tokens").size(), "the next mint is right at once");
    }

    @Test
    void gitHubsRefusalsNameTheProblemNeverTheKey() throws Exception {
        String pem = AppJwt.pkcs1Pem(appKey);
        String[][] cases = {{"401", "error-jwt-undecodable.json", "check app_id"}, {"404", "error-installation-not-found.json",
            "check installation_id"}, {"422", "error-validation.json", "check repositories"}};
        for (String[] c : cases) {
            github.refusesMinting(INSTALLATION, Integer.parseInt(c[0]), c[1]);
            SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> minter(pem).mint(null));
            assertTrue(e.getMessage().contains("(" + c[0] + " \""), e.getMessage());
            assertTrue(e.getMessage().contains(c[2]), e.getMessage());
            assertFalse(e.getMessage().contains("PRIVATE KEY") || e.getMessage().contains("eyJ"), "no key, no JWT: " + e.getMessage());
        }
    }

    @Test
    void aKeyThatDoesNotParseIsNamedWithoutItsText() {
        String broken = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAnotakeyatall\n-----END RSA PRIVATE KEY-----\n";
        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> minter(broken).mint(null));
        assertTrue(e.getMessage().contains("private_key"), e.getMessage());
        assertFalse(e.getMessage().contains("notakeyatall"), e.getMessage());
        SecretUnavailableException empty = assertThrows(SecretUnavailableException.class, () -> minter("just text").mint(null));
        assertTrue(empty.getMessage().contains("holds no private key"), empty.getMessage());
        assertTrue(github.requests("/app/").isEmpty(), "nothing was sent to GitHub");
    }

    @Test
    void retiringRevokesWithTheTokenItself() throws Exception {
        github.revokes();
        SecretLease lease = new SecretLease(Secret.of(TOKEN), Instant.now().plusSeconds(3000), "installation");
        minter(AppJwt.pkcs1Pem(appKey)).retire(lease);
        var revoked = github.requests("/installation/token");
        assertEquals(1, revoked.size());
        assertEquals("DELETE", revoked.get(0).getMethod().getName());
        assertEquals("Bearer " + TOKEN, revoked.get(0).getHeader("Authorization"));

        minter(AppJwt.pkcs1Pem(appKey)).retire(new SecretLease(Secret.of(TOKEN), Instant.now().minusSeconds(1), "installation"));
        assertEquals(1, github.requests("/installation/token").size(), "an expired token is not revoked again");
    }
}
