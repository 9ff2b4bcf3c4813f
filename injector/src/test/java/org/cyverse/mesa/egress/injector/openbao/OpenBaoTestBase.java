package org.cyverse.mesa.egress.injector.openbao;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fake OpenBao (WireMock, fixtures from the OpenBao API docs: see resources/openbao/README.md),
 * a source under test, and a log capture that fails the test when a credential reached a log line.
 */
abstract class OpenBaoTestBase {

    static final String JWT_1 = "eyJhbGciOiJSUzI1NiJ9.first-service-account.c2lnMQ";
    static final String JWT_2 = "eyJhbGciOiJSUzI1NiJ9.rotated-service-account.c2lnMg";
    static final String TOKEN_1 = "s.proxyTokenOne1111";
    static final String TOKEN_2 = "s.proxyTokenTwo2222";
    static final String WRAPPING = "s.wrappingTokenWWWW";
    static final String SECRET = "sk-ant-from-openbao-4242";
    static final String DB_PASSWORD = "A1a-3ViKAGli3CCm4VUm";
    static final String KV_PATH = "secret/data/agents/anthropic";
    static final SecretRef KV_REF = SecretRef.parse("openbao:" + KV_PATH + "#api_key");
    static final String LEASE = "database/creds/readonly/RMTEnlBPjOQt4JKql7Qsm4Z3";
    static final SecretRef DB_REF = SecretRef.parse("openbao:database/creds/readonly#password");

    @TempDir
    Path dir;
    FakeOpenBao bao;
    LogCapture logs;
    OpenBaoSecretSource source;

    @BeforeEach
    void startFake() {
        logs = new LogCapture();
        bao = FakeOpenBao.http();
    }

    @AfterEach
    void stopAll() {
        try {
            if (source != null) {
                source.close();
            }
            bao.close();
            logs.assertNoneOf(JWT_1, JWT_2, TOKEN_1, TOKEN_2, WRAPPING, SECRET, DB_PASSWORD);
        } finally {
            logs.close();
        }
    }

    /** Settings for {@code method} against the fake, KV values kept {@code kvTtl}. */
    OpenBaoSettings settings(OpenBaoSettings.AuthMethod method, String namespace, Duration kvTtl) throws Exception {
        Path jwt = dir.resolve("jwt");
        if (!Files.exists(jwt)) {
            Files.writeString(jwt, JWT_1 + "\n");
        }
        Path token = dir.resolve("token");
        if (!Files.exists(token)) {
            Files.writeString(token, TOKEN_1);
        }
        Path wrapped = dir.resolve("wrapped");
        if (!Files.exists(wrapped)) {
            Files.writeString(wrapped, WRAPPING + "\n");
        }
        String mount = method == OpenBaoSettings.AuthMethod.JWT ? "keycloak" : null;
        return new OpenBaoSettings(bao.address(), namespace, bao.caPem(), method, mount, "vice-analysis", jwt, token, wrapped,
                OpenBaoSettings.Timeouts.defaults().withKvTtl(kvTtl));
    }

    OpenBaoSecretSource source(OpenBaoSettings settings) throws Exception {
        source = OpenBaoSecretSource.create(settings);
        return source;
    }

    OpenBaoSecretSource kubernetesSource() throws Exception {
        return source(settings(OpenBaoSettings.AuthMethod.KUBERNETES, "", Duration.ofMinutes(5)));
    }

    /** Polls {@code condition} every 20 ms for at most {@code seconds}. */
    static void await(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(condition.getAsBoolean(), "timed out after " + seconds + " s waiting for " + what);
    }
}
