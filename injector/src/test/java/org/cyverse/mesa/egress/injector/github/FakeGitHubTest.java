package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fake answers as GitHub's REST docs show, and {@link AppJwt} tells the App's JWT from others. */
class FakeGitHubTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String APP_ID = "12345";
    private static final String ISO_SECONDS = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z";

    @TempDir
    static Path dir;
    static FakeGitHub github;
    static HttpClient http;
    static KeyPair appKey;

    @BeforeAll
    static void start() throws Exception {
        github = FakeGitHub.https(dir);
        http = HttpClient.newBuilder().sslContext(trusting(github.caPem())).connectTimeout(Duration.ofSeconds(5)).build();
        appKey = AppJwt.newAppKey();
    }

    @AfterAll
    static void stop() {
        github.close();
    }

    @Test
    void mintingAnswersTheDocsShapeWithEachTokenInTurnAnHourAhead() throws Exception {
        github.mints(1001, "ghs_first", "ghs_second");
        String asked = "{\"repositories\":[\"Hello-World\"],\"permissions\":{\"contents\":\"read\",\"metadata\":\"read\"}}";

        Instant before = Instant.now();
        HttpResponse<String> first = mint(1001, "Bearer " + jwt(appKey), asked);
        Instant after = Instant.now();

        assertEquals(201, first.statusCode());
        assertEquals("application/json; charset=utf-8", first.headers().firstValue("Content-Type").orElse(null));
        JsonNode token = JSON.readTree(first.body());
        assertEquals("ghs_first", token.get("token").asText());
        String expiresAt = token.get("expires_at").asText();
        assertTrue(expiresAt.matches(ISO_SECONDS), expiresAt);
        Instant expires = Instant.parse(expiresAt);
        // Whole seconds: up to one second short of an hour after the answer.
        assertFalse(expires.isBefore(before.plus(Duration.ofHours(1)).minusSeconds(1)), expiresAt);
        assertFalse(expires.isAfter(after.plus(Duration.ofHours(1))), expiresAt);
        assertEquals(JSON.readTree("{\"contents\":\"read\",\"metadata\":\"read\"}"), token.get("permissions"));
        assertEquals("selected", token.get("repository_selection").asText());
        JsonNode repository = token.get("repositories").get(0);
        assertEquals(1, token.get("repositories").size());
        assertEquals("Hello-World", repository.get("name").asText());
        assertEquals("octocat/Hello-World", repository.get("full_name").asText());
        assertEquals("https://github.com/octocat/Hello-World.git", repository.get("clone_url").asText());
        assertEquals(1296269, repository.get("id").asLong());

        assertEquals("ghs_second", JSON.readTree(mint(1001, "Bearer " + jwt(appKey), asked).body()).get("token").asText());
        assertEquals("ghs_second", JSON.readTree(mint(1001, "Bearer " + jwt(appKey), asked).body()).get("token").asText(),
                "the last token again once all were served");

        var requests = github.requests("/app/installations/1001/");
        assertEquals(3, requests.size());
        AppJwt.Claims claims = AppJwt.verify(requests.get(0).getHeader("Authorization"), (RSAPublicKey) appKey.getPublic());
        assertEquals(APP_ID, claims.iss());
        assertEquals(Duration.ofMinutes(10), claims.lifetime());
        assertEquals(JSON.readTree(asked), github.bodies("/app/installations/1001/").get(0));
    }

    @Test
    void mintingUnnarrowedGivesEveryRepositoryAndTheFixturesPermissions() throws Exception {
        github.mints(1002, Duration.ofSeconds(30), "ghs_short");

        Instant before = Instant.now();
        JsonNode token = JSON.readTree(mint(1002, "Bearer " + jwt(appKey), "").body());

        assertEquals("ghs_short", token.get("token").asText());
        Instant expires = Instant.parse(token.get("expires_at").asText());
        assertFalse(expires.isBefore(before.plusSeconds(29)), expires.toString());
        assertFalse(expires.isAfter(Instant.now().plusSeconds(30)), expires.toString());
        assertEquals("all", token.get("repository_selection").asText());
        assertFalse(token.has("repositories"), "GitHub lists no repositories for an unnarrowed token");
        assertEquals(JSON.readTree("{\"issues\":\"write\",\"contents\":\"read\"}"), token.get("permissions"));
    }

    @Test
    void mintingByRepositoryIdEchoesTheIdsInTheAccountSet() throws Exception {
        github.mints(1003, "ghs_ids");
        github.account("acme");
        try {
            JsonNode token = JSON.readTree(mint(1003, "Bearer " + jwt(appKey), "{\"repository_ids\":[7,8]}").body());
            assertEquals(7, token.get("repositories").get(0).get("id").asLong());
            assertEquals(8, token.get("repositories").get(1).get("id").asLong());
            assertEquals("acme", token.get("repositories").get(1).get("owner").get("login").asText());
        } finally {
            github.account(FakeGitHub.DEFAULT_ACCOUNT);
        }
    }

    @Test
    void mintingRefusesWhatGitHubRefuses() throws Exception {
        github.mints(1004, "ghs_never");
        assertError(mint(1004, null, "{}"), 401, "A JSON web token could not be decoded", "https://docs.github.com/rest");
        assertError(mint(1004, "Bearer not-a-jwt", "{}"), 401, "A JSON web token could not be decoded", "https://docs.github.com/rest");
        assertError(mint(1004, "Bearer " + jwt(appKey), "{not json"), 400, "Problems parsing JSON", null);
        assertError(mint(999_999, "Bearer " + jwt(appKey), "{}"), 404, "Not Found", null);

        String docs = "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app";
        github.refusesMinting(1005, 401, "bad-credentials");
        assertError(mint(1005, "Bearer " + jwt(appKey), "{}"), 401, "Bad credentials", "https://docs.github.com/rest");
        github.refusesMinting(1005, 403, "installation-suspended");
        assertError(mint(1005, "Bearer " + jwt(appKey), "{}"), 403, "This installation has been suspended", docs);
        github.refusesMinting(1005, 404, "error-installation-not-found.json");
        assertError(mint(1005, "Bearer " + jwt(appKey), "{}"), 404, "Not Found", docs);
        github.refusesMinting(1005, 422, "validation");
        assertError(mint(1005, "Bearer " + jwt(appKey), "{\"repositories\":[\"elsewhere\"]}"), 422,
                "There is at least one repository that does not exist or is not accessible to the parent installation.", docs);
        github.refusesMinting(1005, 422, "permissions-not-granted");
        assertError(mint(1005, "Bearer " + jwt(appKey), "{\"permissions\":{\"administration\":\"write\"}}"), 422,
                "The permissions requested are not granted to this installation.", docs);

        github.mints(1005, "ghs_again");
        assertEquals(201, mint(1005, "Bearer " + jwt(appKey), "{}").statusCode(), "mints() takes over from a refusal");
    }

    @Test
    void revokingAnswers204() throws Exception {
        github.revokes();
        HttpResponse<String> answer = http.send(request("/installation/token").header("Authorization", "Bearer ghs_gone").DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(204, answer.statusCode());
        assertEquals("Bearer ghs_gone", github.requests("/installation/token").get(0).getHeader("Authorization"));
    }

    @Test
    void repositoryAndRateLimitAnswerOnlyTheirToken() throws Exception {
        github.repository("acme", "widgets", "ghs_repo");
        JsonNode repository = JSON.readTree(get("/repos/acme/widgets", "Bearer ghs_repo").body());
        assertEquals("acme/widgets", repository.get("full_name").asText());
        assertEquals("acme", repository.get("owner").get("login").asText());
        assertEquals("https://api.github.com/repos/acme/widgets", repository.get("url").asText());
        HttpResponse<String> byTokenScheme = get("/repos/acme/widgets", "token ghs_repo");
        assertEquals(200, byTokenScheme.statusCode());
        assertEquals("5000", byTokenScheme.headers().firstValue("x-ratelimit-limit").orElse(null));
        assertError(get("/repos/acme/widgets", "Bearer ghs_other"), 401, "Bad credentials", "https://docs.github.com/rest");
        assertError(get("/repos/acme/widgets", null), 401, "Bad credentials", "https://docs.github.com/rest");

        github.rateLimit("ghs_rate");
        JsonNode limits = JSON.readTree(get("/rate_limit", "Bearer ghs_rate").body());
        assertEquals(5000, limits.get("resources").get("core").get("limit").asInt());
        assertEquals(5000, limits.get("rate").get("limit").asInt());
        assertError(get("/rate_limit", "Bearer ghs_other"), 401, "Bad credentials", "https://docs.github.com/rest");
    }

    @Test
    void appJwtAcceptsOnlyTheAppsRs256Jwt() throws Exception {
        RSAPublicKey key = (RSAPublicKey) appKey.getPublic();
        Instant now = Instant.now();
        AppJwt.Claims claims = AppJwt.verify("Bearer " + jwt(appKey), key);
        assertEquals(APP_ID, claims.iss());
        assertFalse(claims.iat().isAfter(now));

        AssertionError otherKey = assertThrows(AssertionError.class, () -> AppJwt.verify("Bearer " + jwt(AppJwt.newAppKey()), key));
        assertTrue(otherKey.getMessage().contains("not by the App's key"), otherKey.getMessage());

        String unsigned = new PlainJWT(claims(now)).serialize();
        AssertionError none = assertThrows(AssertionError.class, () -> AppJwt.verify("Bearer " + unsigned, key));
        assertTrue(none.getMessage().contains("not signed"), none.getMessage());

        SignedJWT hs256 = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims(now));
        hs256.sign(new MACSigner(new byte[32]));
        AssertionError mac = assertThrows(AssertionError.class, () -> AppJwt.verify("Bearer " + hs256.serialize(), key));
        assertTrue(mac.getMessage().contains("HS256"), mac.getMessage());

        SignedJWT fractional = signed(new JWTClaimsSet.Builder(claims(now)).claim("iat", now.getEpochSecond() + 0.5).build());
        AssertionError fraction = assertThrows(AssertionError.class, () -> AppJwt.verify("Bearer " + fractional.serialize(), key));
        assertTrue(fraction.getMessage().contains("integer"), fraction.getMessage());

        assertThrows(AssertionError.class, () -> AppJwt.verify("token " + jwt(appKey), key));
        assertThrows(AssertionError.class, () -> AppJwt.verify(null, key));
    }

    @Test
    void appKeyPemsAreGitHubsAndPkcs8Forms() throws Exception {
        KeyPair key = AppJwt.newAppKey();
        String pkcs1 = AppJwt.pkcs1Pem(key);
        assertTrue(pkcs1.startsWith("-----BEGIN RSA PRIVATE KEY-----"), pkcs1.lines().findFirst().orElse(""));
        String pkcs8 = AppJwt.pkcs8Pem(key);
        assertTrue(pkcs8.startsWith("-----BEGIN PRIVATE KEY-----"), pkcs8.lines().findFirst().orElse(""));
        byte[] der = Base64.getMimeDecoder().decode(pkcs8.replaceAll("-----[A-Z ]+-----", ""));
        assertEquals(key.getPrivate(), KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der)));
    }

    // --- helpers ---------------------------------------------------------------------------

    /** An App JWT as GitHub's docs describe it: iat a minute back, exp nine minutes on, iss the App. */
    private static String jwt(KeyPair key) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims(Instant.now()));
        jwt.sign(new RSASSASigner(key.getPrivate()));
        return jwt.serialize();
    }

    private static SignedJWT signed(JWTClaimsSet claims) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
        jwt.sign(new RSASSASigner(appKey.getPrivate()));
        return jwt;
    }

    private static JWTClaimsSet claims(Instant now) {
        return new JWTClaimsSet.Builder().issuer(APP_ID).issueTime(Date.from(now.minusSeconds(60)))
                .expirationTime(Date.from(now.plusSeconds(540))).build();
    }

    private static HttpResponse<String> mint(long installation, String authorization, String body) throws Exception {
        HttpRequest.Builder b = request("/app/installations/" + installation + "/access_tokens")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder b = request(path).GET();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(github.url() + path)).timeout(Duration.ofSeconds(10))
                .header("Accept", "application/vnd.github+json").header("X-GitHub-Api-Version", "2022-11-28");
    }

    /** GitHub's error body: {@code message}, {@code documentation_url}, and {@code status} as a string. */
    private static void assertError(HttpResponse<String> answer, int status, String message, String documentationUrl) throws Exception {
        assertEquals(status, answer.statusCode(), answer.body());
        JsonNode error = JSON.readTree(answer.body());
        assertEquals(message, error.get("message").asText());
        assertTrue(error.get("status").isTextual(), "status is a string: " + error);
        assertEquals(Integer.toString(status), error.get("status").asText());
        assertTrue(error.get("documentation_url").asText().startsWith("https://docs.github.com/rest"), error.toString());
        if (documentationUrl != null) {
            assertEquals(documentationUrl, error.get("documentation_url").asText());
        }
    }

    static SSLContext trusting(Path caPem) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            trust.setCertificateEntry("github-test-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
