package org.cyverse.mesa.egress.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.cyverse.mesa.egress.injector.github.AppJwt;
import org.cyverse.mesa.egress.injector.github.FakeGitHub;
import org.cyverse.mesa.egress.injector.openbao.LogCapture;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GitHub refusing to mint, and a token running out while GitHub refuses: {@code /readyz} says
 * so, requests get 503 {@code credential_unavailable}, never an old token, and no log line holds
 * the key or a token.
 */
class GitHubMintingFaultsTest {

    static final long INSTALLATION = 77;
    static final String TOKEN = "ghs_shortlived0000000000000000000000000001";

    @TempDir
    Path dir;
    FakeGitHub github;
    LogCapture logs;
    String pem;

    @BeforeEach
    void start() throws Exception {
        logs = new LogCapture();
        github = FakeGitHub.https(dir);
        github.account("acme");
        github.revokes();
        github.repository("acme", "widgets", TOKEN);
        pem = AppJwt.pkcs1Pem(AppJwt.newAppKey());
        Files.writeString(dir.resolve("app.pem"), pem);
    }

    @AfterEach
    void stop() {
        try {
            github.close();
            logs.assertNoneOf(TOKEN, pem.lines().skip(1).findFirst().orElseThrow());
        } finally {
            logs.close();
        }
    }

    ProxyFixture proxy() throws Exception {
        return ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + github.caPem() + "\"\n  intercept: all\n"
                + "allow:\n  - host: localhost\n    ports: [" + github.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n  - name: github\n    hosts: [localhost]\n    ports: [" + github.port() + "]\n"
                + "    sentinel: proxy-injected\n"
                + "    github_app:\n      app_id: 123456\n      private_key: \"file:" + dir.resolve("app.pem") + "\"\n"
                + "      installation_id: " + INSTALLATION + "\n      repositories: [acme/widgets]\n"
                + "      branch: agent/job-17\n      api_url: \"" + github.url() + "\"\n");
    }

    HttpResponse<String> getRepository(ProxyFixture proxy) throws Exception {
        return proxy.interceptingClient().send(HttpRequest.newBuilder(URI.create(github.url() + "/repos/acme/widgets"))
                .header("Authorization", "token proxy-injected").timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aWrongInstallationKeepsTheProxyUnreadyAndRequestsGet503() throws Exception {
        github.refusesMinting(INSTALLATION, 404, "error-installation-not-found.json");
        try (ProxyFixture proxy = proxy()) {
            HttpResponse<String> ready = proxy.admin("/readyz");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!ready.body().contains("installation") && System.nanoTime() < deadline) {
                Thread.sleep(100);
                ready = proxy.admin("/readyz");
            }
            assertEquals(503, ready.statusCode());
            assertTrue(ready.body().contains("check installation_id"), ready.body());

            HttpResponse<String> response = getRepository(proxy);
            assertEquals(503, response.statusCode());
            assertEquals("credential_unavailable", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertTrue(github.requests("/repos/").isEmpty(), "nothing went to the API without a token");
        }
    }

    @Test
    void aTokenThatRunsOutWhileGitHubRefusesIsNeverUsedAgain() throws Exception {
        github.mints(INSTALLATION, Duration.ofSeconds(4), TOKEN);
        try (ProxyFixture proxy = proxy()) {
            proxy.awaitReady(Duration.ofSeconds(10));
            assertEquals(200, getRepository(proxy).statusCode());
            github.refusesMinting(INSTALLATION, 401, "error-bad-credentials.json");

            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            HttpResponse<String> response = getRepository(proxy);
            while (response.statusCode() == 200 && System.nanoTime() < deadline) {
                Thread.sleep(250);
                response = getRepository(proxy);
            }
            assertEquals(503, response.statusCode(), "once expired, the old token is not sent: " + response.body());
            assertEquals("credential_unavailable", response.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertFalse(response.body().contains(TOKEN));
            assertTrue(github.requests("/app/installations/").size() >= 2, "a new token was asked for ahead of the expiry");
        }
    }
}
