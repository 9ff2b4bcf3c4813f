package org.cyverse.mesa.egress.proxy;

import static org.cyverse.mesa.egress.testkit.Keycloak.ALICE;
import static org.cyverse.mesa.egress.testkit.Keycloak.ALICE_AT_LAUNCHER;
import static org.cyverse.mesa.egress.testkit.Keycloak.ALICE_PASSWORD;
import static org.cyverse.mesa.egress.testkit.Keycloak.BOB;
import static org.cyverse.mesa.egress.testkit.Keycloak.BOB_PASSWORD;
import static org.cyverse.mesa.egress.testkit.Keycloak.DATA;
import static org.cyverse.mesa.egress.testkit.Keycloak.DE;
import static org.cyverse.mesa.egress.testkit.Keycloak.PROXY_CLIENT;
import static org.cyverse.mesa.egress.testkit.Keycloak.PROXY_SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.openbao.LogCapture;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.testkit.BearerCheckingUpstream;
import org.cyverse.mesa.egress.testkit.Keycloak;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.TokenAnswer;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user's identity brokered end to end: a real Keycloak 26.7 ({@link Keycloak}, the realm of
 * {@code keycloak/cyverse-realm.json}), the real proxy, and two HTTPS services on loopback standing
 * for de.cyverse.org and data.cyverse.org that accept only a token Keycloak signed for their own
 * audience ({@link BearerCheckingUpstream}, checked against the realm's JWKS). The agent is a JDK
 * HttpClient through the proxy holding the {@code sentinel: auto} placeholders only; the proxy holds
 * alice's refresh token ({@code kc-user}, rotated at every refresh) and exchanges her access token
 * (RFC 8693) for one audience per service ({@code cyverse-de}, {@code cyverse-data}).
 */
class OAuth2KeycloakTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Keycloak keycloak;
    private static TestPki pki;
    private static BearerCheckingUpstream de;
    private static BearerCheckingUpstream data;

    @TempDir
    Path dir;
    private LogCapture logs;

    @BeforeAll
    @Timeout(Keycloak.START_SECONDS + 30)
    static void start() throws Exception {
        keycloak = Keycloak.shared();
        pki = new TestPki("cyverse services");
        de = BearerCheckingUpstream.of(pki.serverContext("de.cyverse.org"), keycloak, DE);
        data = BearerCheckingUpstream.of(pki.serverContext("data.cyverse.org"), keycloak, DATA);
    }

    @AfterAll
    static void stop() {
        de.close();
        data.close();
    }

    @BeforeEach
    void capture() {
        logs = new LogCapture();
    }

    @AfterEach
    void release() {
        logs.close();
    }

    @Test
    @Timeout(180)
    void theAgentWorksForThreeTokenLifetimesThroughRotationsAndARevokedSessionBecomesReadable503s() throws Exception {
        TokenAnswer login = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, ALICE, ALICE_PASSWORD, "openid");
        assertTrue(login.ok(), login.toString());
        String aliceId = login.accessClaims().getSubject();
        Files.writeString(dir.resolve("alice-refresh"), login.refreshToken());
        Duration lifetime = Duration.ofSeconds(Keycloak.accessTokenLifespan());

        try (ProxyFixture proxy = ProxyFixture.start(config(userCredential("alice-refresh") + exchanged("cyverse-de", de)
                + exchanged("cyverse-data", data)), resolver())) {
            proxy.awaitReady(Duration.ofSeconds(30));
            String deSentinel = sentinel(proxy, "cyverse-de");
            String dataSentinel = sentinel(proxy, "cyverse-data");
            HttpClient agent = proxy.interceptingClient();
            int deBefore = de.seen().size();
            int dataBefore = data.seen().size();

            // Write to de and read back from data until each has seen four tokens and three lifetimes passed.
            Instant began = Instant.now();
            Instant deadline = began.plus(lifetime.multipliedBy(6));
            int round = 0;
            while (Instant.now().isBefore(deadline) && (Duration.between(began, Instant.now()).compareTo(lifetime.multipliedBy(3)) <= 0
                    || jtis(de, deBefore).size() < 4 || jtis(data, dataBefore).size() < 4)) {
                round++;
                HttpResponse<String> put = agent.send(request(de, "/files/note-" + round, deSentinel)
                        .PUT(HttpRequest.BodyPublishers.ofString("note " + round)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(201, put.statusCode(), "round " + round + ": " + put.body());
                HttpResponse<String> who = agent.send(request(data, "/user-info", dataSentinel).GET().build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, who.statusCode(), "round " + round + ": " + who.body());
                assertEquals(aliceId, JSON.readTree(who.body()).path("sub").asText(), "the user's own identity");
                Thread.sleep(250); // the test is about time passing: tokens expiring under a working agent
            }
            assertEquals("note " + round, new String(de.file("note-" + round)), "the last write arrived");
            List<BearerCheckingUpstream.Seen> atDe = de.seen().subList(deBefore, de.seen().size());
            List<BearerCheckingUpstream.Seen> atData = data.seen().subList(dataBefore, data.seen().size());
            assertTrue(atDe.stream().allMatch(BearerCheckingUpstream.Seen::accepted) && atData.stream().allMatch(BearerCheckingUpstream.Seen::accepted),
                    "no request went out with a token its service refused");
            assertTrue(atDe.stream().allMatch(s -> s.aud().equals(List.of(DE))), "de saw only tokens for de: " + audiences(atDe));
            assertTrue(atData.stream().allMatch(s -> s.aud().equals(List.of(DATA))), "data saw only tokens for data: " + audiences(atData));
            assertTrue(jtis(de, deBefore).size() >= 4 && jtis(data, dataBefore).size() >= 4,
                    "tokens were replaced as they aged: " + jtis(de, deBefore).size() + " at de, " + jtis(data, dataBefore).size() + " at data");
            double refreshes = metric(proxy, "mesa_egress_oauth2_tokens_total{credential=\"kc-user\",grant=\"refresh_token\",outcome=\"success\"}");
            assertTrue(refreshes >= 4, "the refresh token was used and rotated at each refresh: " + refreshes);
            assertEquals(0, metric(proxy, "mesa_egress_oauth2_tokens_total{credential=\"kc-user\",grant=\"refresh_token\",outcome=\"revoked\"}"),
                    "never a rotated-away token sent (Keycloak would have ended the session)");
            JsonNode audit = proxy.awaitAuditRecord(r -> r.path("path").asText().startsWith("/files/note-"));
            assertEquals("cyverse-de", audit.path("credential").asText());

            // An administrator ends alice's session mid-job.
            Instant revoked = Instant.now();
            keycloak.logoutUser(ALICE);
            HttpResponse<String> refused = null;
            while (Instant.now().isBefore(revoked.plus(lifetime.multipliedBy(4)))) {
                refused = agent.send(request(de, "/files/after", deSentinel).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (refused.statusCode() != 200 && refused.statusCode() != 404) {
                    break;
                }
                Thread.sleep(250);
            }
            Duration until = Duration.between(revoked, Instant.now());
            assertEquals(503, refused.statusCode(), refused.body());
            JsonNode answer = JSON.readTree(refused.body());
            assertEquals("credential_unavailable", answer.path("reason").asText());
            assertTrue(answer.path("error").asText().contains("invalid_grant"), "the issuer's answer, readable: " + answer);
            assertTrue(answer.path("error").asText().contains("the user's session was revoked or expired"), answer.toString());
            // The exchanged token in use was minted at most one refresh (two thirds of a lifetime) before the
            // revocation and serves to its end; the user's own token is dropped at the first invalid_grant.
            assertTrue(until.compareTo(lifetime.multipliedBy(2)) < 0, "refused " + until.toMillis() + " ms after the revocation");
            System.out.println("[oauth2] " + round + " rounds over " + Duration.between(began, revoked).toSeconds() + " s; " + refreshes
                    + " refreshes; 503 " + until.toMillis() + " ms after the admin's logout (lifetime " + lifetime.toSeconds() + " s)");

            String everything = proxy.auditText() + logs.text() + new String(proxy.server().metrics().scrape());
            assertFalse(everything.contains(login.refreshToken()) || everything.contains(PROXY_SECRET) || everything.contains(login.accessToken()),
                    "no token or client secret in the audit, the log or the metrics");
        }
    }

    @Test
    @Timeout(120)
    void aTokenOrASentinelNeverReachesTheOtherServiceAndTheUsersTokensAreLeakNeedles() throws Exception {
        TokenAnswer login = keycloak.passwordGrant(PROXY_CLIENT, PROXY_SECRET, BOB, BOB_PASSWORD, "openid");
        Files.writeString(dir.resolve("bob-refresh"), login.refreshToken());
        try (ProxyFixture proxy = ProxyFixture.start(config(userCredential("bob-refresh") + exchanged("cyverse-de", de)
                + exchanged("cyverse-data", data)), resolver())) {
            proxy.awaitReady(Duration.ofSeconds(30));
            HttpClient agent = proxy.interceptingClient();
            int dataBefore = data.seen().size();

            HttpResponse<String> crossed = agent.send(request(data, "/files/x", sentinel(proxy, "cyverse-de")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, crossed.statusCode(), crossed.body());
            assertEquals("credential_endpoint_mismatch", JSON.readTree(crossed.body()).path("reason").asText());
            assertEquals(dataBefore, data.seen().size(), "refused before anything reached data");

            // The agent somehow holds the user's refresh token (the launcher's copy): it leaves for no host.
            HttpResponse<String> leaked = agent.send(request(de, "/files/y", sentinel(proxy, "cyverse-de"))
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"note\": \"" + login.refreshToken() + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, leaked.statusCode(), leaked.body());
            assertEquals("secret_leak", JSON.readTree(leaked.body()).path("reason").asText());
            String signature = login.refreshToken().substring(login.refreshToken().lastIndexOf('.') + 1);
            HttpResponse<String> part = agent.send(request(de, "/files/z", sentinel(proxy, "cyverse-de"))
                    .header("X-Debug", signature).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("secret_leak", JSON.readTree(part.body()).path("reason").asText(), "a JWT's signature part alone is the token's");
            assertTrue(de.file("y") == null, "the leaking write never arrived");
        }
    }

    @Test
    @Timeout(120)
    void theJwtBearerGrantAndClientCredentialsAgainstTheRealKeycloak() throws Exception {
        Files.writeString(dir.resolve("assertion"), keycloak.assertion(ALICE_AT_LAUNCHER, Duration.ofMinutes(4)));
        String yaml = "  - name: cyverse-de\n    hosts: [\"de.cyverse.org\"]\n    ports: [" + de.port() + "]\n    sentinel: auto\n"
                + "    oauth2:\n" + client() + "      grant: jwt_bearer\n      subject_token: \"file:" + dir.resolve("assertion") + "\"\n"
                + "  - name: service\n    hosts: [\"data.cyverse.org\"]\n    ports: [" + data.port() + "]\n"
                + "    oauth2:\n" + client() + "      grant: client_credentials\n      revoke_url: " + keycloak.revocationEndpoint() + "\n";
        try (ProxyFixture proxy = ProxyFixture.start(config(yaml), resolver())) {
            proxy.awaitReady(Duration.ofSeconds(30));
            HttpClient agent = proxy.interceptingClient();

            HttpResponse<String> asAlice = agent.send(request(de, "/user-info", sentinel(proxy, "cyverse-de")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, asAlice.statusCode(), asAlice.body());
            assertEquals(keycloak.userId(ALICE), JSON.readTree(asAlice.body()).path("sub").asText(), "the assertion's user, linked at Keycloak");

            // No sentinel at all: the credential's header is set on its host anyway.
            HttpResponse<String> asService = agent.send(HttpRequest.newBuilder(URI.create("https://data.cyverse.org:" + data.port() + "/user-info"))
                    .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, asService.statusCode(), asService.body());
            assertEquals(PROXY_CLIENT, JSON.readTree(asService.body()).path("azp").asText());

            // At stop the tokens the proxy holds are revoked at the issuer (RFC 7009, discovered or configured).
            assertTrue(proxy.server().stop(Duration.ofSeconds(2)));
            assertEquals(1, metric(proxy, "mesa_egress_oauth2_tokens_total{credential=\"service\",grant=\"client_credentials\",outcome=\"retired\"}"),
                    new String(proxy.server().metrics().scrape()));
        }
    }

    // --- fixtures

    private String config(String credentials) throws Exception {
        Path ca = pki.writeCaPem(dir.resolve("services-ca.pem"));
        Files.writeString(dir.resolve("kc-client"), PROXY_SECRET);
        return "profile: P3\n"
                + "tls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n  - host: de.cyverse.org\n    ports: [" + de.port() + "]\n  - host: data.cyverse.org\n    ports: [" + data.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n" + credentials;
    }

    private String client() {
        return "      token_url: " + keycloak.tokenEndpoint() + "\n      client_id: " + PROXY_CLIENT + "\n"
                + "      client_secret: \"file:" + dir.resolve("kc-client") + "\"\n";
    }

    /** The user's own token: the refresh token in {@code file}, refreshed (and rotated) by the proxy. */
    private String userCredential(String file) {
        return "  - name: kc-user\n    hosts: [\"kc.cyverse.org\"]\n    oauth2:\n" + client()
                + "      grant: refresh_token\n      refresh_token: \"file:" + dir.resolve(file) + "\"\n"
                + "      revoke_url: " + keycloak.revocationEndpoint() + "\n";
    }

    /** The user's token exchanged for {@code service}'s audience, on that service only. */
    private String exchanged(String name, BearerCheckingUpstream service) {
        String host = service == de ? "de.cyverse.org" : "data.cyverse.org";
        return "  - name: " + name + "\n    hosts: [\"" + host + "\"]\n    ports: [" + service.port() + "]\n    sentinel: auto\n"
                + "    oauth2:\n" + client() + "      grant: token_exchange\n      subject_token: \"credential:kc-user\"\n"
                + "      subject_token_type: urn:ietf:params:oauth:token-type:access_token\n      audience: " + service.audience() + "\n"
                + "      revoke_url: " + keycloak.revocationEndpoint() + "\n";
    }

    /** de.cyverse.org and data.cyverse.org are the loopback services; nothing else resolves. */
    private static HostResolver resolver() {
        return host -> {
            if (host.equals("de.cyverse.org") || host.equals("data.cyverse.org")) {
                return List.of(InetAddress.getByName("127.0.0.1"));
            }
            throw new java.net.UnknownHostException(host);
        };
    }

    /** What {@code mesa-egress sentinels} prints for {@code name}: the config's own placeholder. */
    private static String sentinel(ProxyFixture proxy, String name) {
        MesaConfig config = ProxyFixture.loader().load(proxy.configFile(), org.cyverse.mesa.egress.config.Overrides.NONE).config();
        return config.credentials().stream().filter(c -> c.name().equals(name)).map(CredentialSpec::sentinel).findFirst().orElseThrow();
    }

    private static HttpRequest.Builder request(BearerCheckingUpstream service, String path, String sentinel) {
        String host = service == de ? "de.cyverse.org" : "data.cyverse.org";
        return HttpRequest.newBuilder(URI.create("https://" + host + ":" + service.port() + path))
                .timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer " + sentinel);
    }

    private static Set<String> jtis(BearerCheckingUpstream service, int from) {
        Set<String> jtis = new HashSet<>();
        service.seen().subList(from, service.seen().size()).forEach(s -> jtis.add(s.jti() != null ? s.jti() : s.exp() + "/" + s.sub()));
        return jtis;
    }

    private static Map<List<String>, Long> audiences(List<BearerCheckingUpstream.Seen> seen) {
        return seen.stream().collect(java.util.stream.Collectors.groupingBy(BearerCheckingUpstream.Seen::aud, java.util.stream.Collectors.counting()));
    }

    private static double metric(ProxyFixture proxy, String series) {
        String text = new String(proxy.server().metrics().scrape());
        return text.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
                .findFirst().orElse(0);
    }
}
