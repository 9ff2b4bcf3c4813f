package org.cyverse.mesa.egress.proxy;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.cyverse.mesa.egress.injector.openbao.FakeOpenBao;
import org.cyverse.mesa.egress.injector.openbao.LogCapture;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real proxy with broker.openbao against a fake OpenBao (WireMock answering with the fixtures
 * of the injector's resources/openbao/, shaped as OpenBao's API docs give them: see its README)
 * and a real HTTPS upstream. The agent only ever holds the sentinel.
 */
class OpenBaoProxyTest {

    private static final String JWT = "eyJhbGciOiJSUzI1NiJ9.vice-analysis-sa.c2ln";
    private static final String TOKEN = "s.proxyTokenFromKubernetesLogin";
    private static final String SECRET = "sk-ant-REAL-from-openbao-31337";
    private static final String KV_PATH = "secret/data/agents/anthropic";

    @TempDir
    Path dir;
    private TestPki pki;
    private HttpsUpstream upstream;
    private LogCapture logs;

    @BeforeEach
    void start() throws Exception {
        logs = new LogCapture();
        pki = new TestPki("upstream");
        upstream = new HttpsUpstream(pki.serverContext("localhost"), "127.0.0.1");
        Files.writeString(dir.resolve("sa-token"), JWT);
    }

    @AfterEach
    void stop() {
        try {
            upstream.close();
            logs.assertNoneOf(JWT, TOKEN, SECRET);
        } finally {
            logs.close();
        }
    }

    private String config(FakeOpenBao bao, String secret) throws Exception {
        Path upstreamCa = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        return "profile: P2\n"
                + "tls:\n  upstream_ca: \"" + upstreamCa + "\"\n  intercept: all\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + upstream.port() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "broker:\n  openbao:\n    address: \"" + bao.address() + "\"\n    namespace: \"vice\"\n"
                + (bao.caPem() == null ? "" : "    ca_cert: \"" + bao.caPem() + "\"\n")
                + "    auth:\n      method: kubernetes\n      role: vice-analysis\n      jwt_file: \"" + dir.resolve("sa-token") + "\"\n"
                + "credentials:\n  - name: anthropic\n    hosts: [\"localhost\"]\n    ports: [" + upstream.port() + "]\n"
                + "    sentinel: \"sk-ant-sentinel\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"" + secret + "\"\n";
    }

    private HttpResponse<String> call(ProxyFixture proxy) throws Exception {
        return proxy.interceptingClient().send(HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/echo"))
                .header("x-api-key", "sk-ant-sentinel").timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theUpstreamGetsTheSecretOpenBaoServedOverHttpsAndTheClientOnlyTheSentinel() throws Exception {
        try (FakeOpenBao bao = FakeOpenBao.https(dir)) {
            bao.kubernetesLogin("kubernetes", TOKEN, 900, true);
            bao.kvRead(KV_PATH, "api_key", SECRET, 3);
            try (ProxyFixture proxy = ProxyFixture.start(config(bao, "openbao:" + KV_PATH + "#api_key"))) {
                proxy.awaitReady(Duration.ofSeconds(10));

                HttpResponse<String> response = call(proxy);

                assertEquals(200, response.statusCode(), response.body());
                assertEquals(SECRET, upstream.seen().get(0).header("x-api-key"), "the upstream received OpenBao's secret");
                assertFalse(response.body().contains(SECRET), "the echoed secret is replaced by the sentinel");
                assertTrue(response.body().contains("sk-ant-sentinel"), response.body());
                bao.server().verify(postRequestedFor(urlEqualTo("/v1/auth/kubernetes/login"))
                        .withHeader("X-Vault-Namespace", equalTo("vice"))
                        .withRequestBody(matchingJsonPath("$.jwt", equalTo(JWT))));
                bao.server().verify(getRequestedFor(urlPathEqualTo("/v1/" + KV_PATH))
                        .withHeader("X-Vault-Token", equalTo(TOKEN))
                        .withHeader("X-Vault-Namespace", equalTo("vice")));
                assertFalse(proxy.auditText().contains(SECRET) || proxy.auditText().contains(TOKEN));
            }
        }
    }

    @Test
    void openBaoDownAtStartMeansNotReadyAnd503UntilItComesBack() throws Exception {
        try (FakeOpenBao bao = FakeOpenBao.httpNotStarted();
                ProxyFixture proxy = ProxyFixture.start(config(bao, "openbao:" + KV_PATH + "#api_key"))) {
            Thread.sleep(300);
            HttpResponse<String> ready = proxy.admin("/readyz");
            assertEquals(503, ready.statusCode());
            assertTrue(ready.body().contains("anthropic") && ready.body().contains("unreachable"), ready.body());
            HttpResponse<String> refused = call(proxy);
            assertEquals(503, refused.statusCode());
            assertEquals("credential_unavailable", refused.headers().firstValue("X-Mesa-Egress-Reason").orElse(null));
            assertEquals(0, upstream.seen().size(), "never forwarded without the credential");

            bao.start();
            bao.kubernetesLogin("kubernetes", TOKEN, 900, true);
            bao.kvRead(KV_PATH, "api_key", SECRET, 1);
            proxy.awaitReady(Duration.ofSeconds(15)); // the store retries with back-off (1 s, 2 s, 4 s, jittered)

            assertEquals(200, call(proxy).statusCode());
            assertEquals(SECRET, upstream.seen().get(0).header("x-api-key"));
        }
    }

    @Test
    void stoppingTheProxyRevokesTheLeasesItHolds() throws Exception {
        String lease = "database/creds/readonly/RMTEnlBPjOQt4JKql7Qsm4Z3";
        try (FakeOpenBao bao = FakeOpenBao.http()) {
            bao.kubernetesLogin("kubernetes", TOKEN, 900, true);
            bao.leasedRead("database/creds/readonly", lease, 600, true, SECRET);
            bao.leaseRevoke();
            try (ProxyFixture proxy = ProxyFixture.start(config(bao, "openbao:database/creds/readonly#password"))) {
                proxy.awaitReady(Duration.ofSeconds(10));
                assertTrue(proxy.server().stop(Duration.ofSeconds(1)));
            }
            bao.server().verify(postRequestedFor(urlEqualTo("/v1/sys/leases/revoke"))
                    .withHeader("X-Vault-Token", equalTo(TOKEN))
                    .withHeader("X-Vault-Namespace", equalTo("vice"))
                    .withRequestBody(matchingJsonPath("$.lease_id", equalTo(lease))));
        }
    }
}
