package org.cyverse.mesa.egress.injector.openbao;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * WireMock playing OpenBao on loopback, answering with the fixtures under
 * {@code src/test/resources/openbao/} (their sources: that folder's README). Shared with
 * proxy-core's tests through the injector test-jar.
 */
public final class FakeOpenBao implements AutoCloseable {

    private final WireMockServer server;
    private final boolean https;
    private final Path caPem;
    /** Fixed before start, so the address is known while OpenBao is "down". */
    private final int port;

    private FakeOpenBao(WireMockConfiguration config, boolean https, Path caPem, int port) {
        this.server = new WireMockServer(config.bindAddress("127.0.0.1"));
        this.https = https;
        this.caPem = caPem;
        this.port = port;
    }

    /** Plain HTTP on a free port, started. */
    public static FakeOpenBao http() {
        FakeOpenBao bao = httpNotStarted();
        bao.server.start();
        return bao;
    }

    /** Plain HTTP on a fixed free port, not started yet: OpenBao "down" until {@link #start}. */
    public static FakeOpenBao httpNotStarted() {
        int port = freePort();
        return new FakeOpenBao(options().port(port), false, null, port);
    }

    /**
     * HTTPS only, with a server certificate for localhost and 127.0.0.1 from a fresh test CA
     * whose PEM is written to {@code dir} ({@link #caPem()}), started.
     */
    public static FakeOpenBao https(Path dir) throws Exception {
        OpenBaoTestPki pki = OpenBaoTestPki.create(dir);
        int port = freePort();
        FakeOpenBao bao = new FakeOpenBao(pki.tls(options().httpDisabled(true).httpsPort(port)), true, pki.caPem(), port);
        bao.server.start();
        return bao;
    }

    public void start() {
        server.start();
    }

    /** Stops answering: connections are refused, as when OpenBao's pod is gone. */
    public void stop() {
        server.stop();
    }

    public WireMockServer server() {
        return server;
    }

    public String address() {
        return https ? "https://localhost:" + port : "http://127.0.0.1:" + port;
    }

    /** The test CA's PEM (HTTPS only). */
    public Path caPem() {
        return caPem;
    }

    /** A fixture with its {@code {{name}}} placeholders filled in. */
    public static String fixture(String name, Map<String, ?> values) {
        try (InputStream in = FakeOpenBao.class.getResourceAsStream("/openbao/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture openbao/" + name);
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            for (Map.Entry<String, ?> e : values.entrySet()) {
                text = text.replace("{{" + e.getKey() + "}}", String.valueOf(e.getValue()));
            }
            return text.replace("{{request}}", "9f8f00ed-c63c-0641-2592-3841fb3c595f");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void answer(MappingBuilder request, int status, String body) {
        var response = aResponse().withStatus(status);
        if (body != null) {
            response = response.withHeader("Content-Type", "application/json").withBody(body);
        }
        server.stubFor(request.willReturn(response));
    }

    public void kubernetesLogin(String mount, String token, long ttl, boolean renewable) {
        answer(post(urlEqualTo("/v1/auth/" + mount + "/login")), 200,
                fixture("auth-kubernetes-login.json", Map.of("token", token, "ttl", ttl, "renewable", renewable)));
    }

    public void jwtLogin(String mount, String token, long ttl, boolean renewable) {
        answer(post(urlEqualTo("/v1/auth/" + mount + "/login")), 200,
                fixture("auth-jwt-login.json", Map.of("token", token, "ttl", ttl, "renewable", renewable)));
    }

    public void lookupSelf(String token, long ttl, boolean renewable) {
        answer(get(urlEqualTo("/v1/auth/token/lookup-self")), 200,
                fixture("auth-token-lookup-self.json", Map.of("token", token, "ttl", ttl, "renewable", renewable)));
    }

    public void renewSelf(String token, long ttl) {
        answer(post(urlEqualTo("/v1/auth/token/renew-self")), 200,
                fixture("auth-token-renew-self.json", Map.of("token", token, "ttl", ttl)));
    }

    public void wrappingLookup(String creationPath) {
        answer(post(urlEqualTo("/v1/sys/wrapping/lookup")), 200,
                fixture("sys-wrapping-lookup.json", Map.of("creation_path", creationPath)));
    }

    public void unwrap(String token, long ttl, boolean renewable) {
        answer(post(urlEqualTo("/v1/sys/wrapping/unwrap")), 200,
                fixture("sys-wrapping-unwrap.json", Map.of("token", token, "ttl", ttl, "renewable", renewable)));
    }

    /** KV v2 read of {@code path} (which includes {@code data/}). */
    public void kvRead(String path, String field, String value, int version) {
        answer(get(urlPathEqualTo("/v1/" + path)), 200,
                fixture("kv2-read.json", Map.of("field", field, "value", value, "version", version)));
    }

    /** A leased secret (database credentials) at {@code path}; its field {@code password} is {@code value}. */
    public void leasedRead(String path, String leaseId, long ttl, boolean renewable, String value) {
        answer(get(urlPathEqualTo("/v1/" + path)), 200,
                fixture("dynamic-creds-read.json", Map.of("lease_id", leaseId, "ttl", ttl, "renewable", renewable, "value", value)));
    }

    /** Temporary AWS credentials as the AWS secrets engine issues them at {@code path}, one per read (not renewable: STS). */
    public record AwsCreds(String leaseId, String accessKey, String secretKey, String securityToken) {}

    /**
     * The AWS engine at {@code path} ({@code aws/creds/ROLE}): the n-th read gets the n-th of {@code issued}, the last
     * one again after that, as each read of the engine mints new credentials.
     */
    public void awsCreds(String path, long ttl, AwsCreds... issued) {
        for (int i = 0; i < issued.length; i++) {
            AwsCreds c = issued[i];
            String token = c.securityToken() == null ? "null" : "\"" + c.securityToken() + "\"";
            com.github.tomakehurst.wiremock.client.ScenarioMappingBuilder read = get(urlPathEqualTo("/v1/" + path)).inScenario("aws " + path)
                    .whenScenarioStateIs(i == 0 ? com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED : "read " + i);
            if (i + 1 < issued.length) {
                read = read.willSetStateTo("read " + (i + 1));
            }
            answer(read, 200, fixture("aws-creds-read.json", Map.of("lease_id", c.leaseId(), "ttl", ttl, "renewable", false,
                    "access_key", c.accessKey(), "secret_key", c.secretKey(), "security_token", token)));
        }
    }

    public void leaseRenew(String leaseId, long ttl) {
        answer(post(urlEqualTo("/v1/sys/leases/renew/" + leaseId)), 200,
                fixture("sys-leases-renew.json", Map.of("lease_id", leaseId, "ttl", ttl)));
    }

    public void leaseRevoke() {
        answer(post(urlEqualTo("/v1/sys/leases/revoke")), 204, null);
    }

    /** Any method on {@code path} (e.g. {@code /v1/secret/data/x}) answers {@code status} with an error fixture. */
    public void error(String path, int status, String fixture) {
        answer(any(urlPathEqualTo(path)), status, fixture(fixture, Map.of()));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
