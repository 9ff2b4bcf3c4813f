package org.cyverse.mesa.egress.injector.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.jopenlibs.vault.EnvironmentLoader;
import io.github.jopenlibs.vault.SslConfig;
import io.github.jopenlibs.vault.Vault;
import io.github.jopenlibs.vault.VaultConfig;
import io.github.jopenlibs.vault.VaultException;
import io.github.jopenlibs.vault.response.AuthResponse;
import io.github.jopenlibs.vault.response.LookupResponse;
import io.github.jopenlibs.vault.response.VaultResponse;
import io.github.jopenlibs.vault.rest.RestResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;

/**
 * The OpenBao HTTP API calls the proxy makes, on the Vault Java driver (OpenBao keeps Vault's API
 * and its {@code X-Vault-*} headers). Every call blocks: only the credential store's executor and
 * this package's own scheduler call it, never a Netty event loop.
 *
 * <p>Every driver object is built per call from immutable settings plus the token of the moment,
 * so a re-login never races a call in flight. The driver reads {@code VAULT_ADDR},
 * {@code VAULT_TOKEN}, {@code VAULT_SSL_CERT} and friends from the environment by default; that is
 * switched off ({@link #NO_ENVIRONMENT}) because the config loader already applied the environment
 * with its documented precedence, and an ambient {@code VAULT_TOKEN} must never be sent along.
 *
 * <p>Failures become {@link OpenBaoException}s whose text is the call, the status and OpenBao's
 * {@code errors} (scrubbed of the credentials this call sent): the driver's own exception text
 * quotes whole response bodies, so it is never passed on as such.
 */
final class OpenBaoClient {

    /** Turns off the driver's environment lookups. */
    static final EnvironmentLoader NO_ENVIRONMENT = new EnvironmentLoader() {
        @Override
        public String loadVariable(String name) {
            return null;
        }
    };

    private static final ObjectMapper JSON = new ObjectMapper();

    private final OpenBaoSettings settings;
    private final SslConfig ssl;
    private final HttpClient http;
    private final Clock clock;

    OpenBaoClient(OpenBaoSettings settings, Clock clock) throws IOException {
        this.settings = settings;
        this.clock = clock;
        this.ssl = settings.caCertPath() == null ? null : OpenBaoTrust.sslConfig(settings.caCertPath());
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER) // a redirect would carry X-Vault-Token elsewhere
                .connectTimeout(settings.timeouts().connect());
        if (ssl != null) {
            builder.sslContext(ssl.getSslContext());
        }
        this.http = builder.build();
    }

    String address() {
        return settings.address();
    }

    /** POST auth/MOUNT/login with role and JWT (kubernetes and jwt auth take the same body). */
    AuthToken login(String jwt) throws OpenBaoException {
        String what = "login at auth/" + settings.mount() + "/login (role " + settings.role() + ")";
        return call(what, new String[] {jwt}, () -> {
            AuthResponse r = settings.method() == OpenBaoSettings.AuthMethod.KUBERNETES
                    // The driver's third argument is the whole mount path, "auth/<mount>".
                    ? vault(null).auth().loginByKubernetes(settings.role(), jwt, "auth/" + settings.mount())
                    : vault(null).auth().loginByJwt(settings.mount(), settings.role(), jwt);
            return grant(r, what);
        });
    }

    /** GET auth/token/lookup-self: the TTL and renewability of a token read from a file. */
    AuthToken lookupSelf(String token) throws OpenBaoException {
        return call("auth/token/lookup-self", new String[] {token}, () -> {
            LookupResponse r = vault(token).auth().lookupSelf();
            return new AuthToken(token, r.getTTL(), r.isRenewable(), clock.instant());
        });
    }

    /** POST auth/token/renew-self without an increment (OpenBao applies the role's TTL); returns the new TTL in seconds. */
    long renewSelf(AuthToken token) throws OpenBaoException {
        return call("auth/token/renew-self", new String[] {token.value()},
                () -> vault(token.value()).auth().renewSelf().getAuthLeaseDuration());
    }

    /**
     * POST sys/wrapping/lookup, unauthenticated: the wrapping token goes in the body only
     * (the driver sends no X-Vault-Token because this config holds none), so looking it up does
     * not use it up.
     */
    JsonNode wrappingLookup(String wrappingToken) throws OpenBaoException {
        return call("sys/wrapping/lookup", new String[] {wrappingToken},
                () -> body(vault(null).sys().wrapping().lookupWrap(wrappingToken, true)));
    }

    /**
     * POST sys/wrapping/unwrap with the wrapping token as X-Vault-Token and no body: sending it in
     * both places would count as a second use and lose the wrapped token (OpenBao's API docs).
     */
    AuthToken unwrap(String wrappingToken) throws OpenBaoException {
        return call("sys/wrapping/unwrap", new String[] {wrappingToken}, () -> {
            return grant(vault(null).sys().wrapping().unwrap(wrappingToken, false), "sys/wrapping/unwrap");
        });
    }

    /** GET PATH (a KV v2 {@code mount/data/path} or any engine's path); the body of a 200 answer. */
    JsonNode read(AuthToken token, String path) throws OpenBaoException {
        String what = "read of " + path;
        return call(what, new String[] {token.value()}, () -> {
            // Engine version 1 on purpose: the driver would otherwise insert "data/" into a KV v2
            // path that (SPEC.md) already holds it. 4xx answers come back without an exception.
            RestResponse r = vault(token.value()).logical().read(path).getRestResponse();
            if (r.getStatus() != 200) {
                throw failure(what, r.getStatus(), r.getBody(), new String[] {token.value()});
            }
            return JSON.readTree(r.getBody());
        });
    }

    /** POST sys/leases/renew/LEASE asking for {@code increment} seconds more; the body (lease_duration, renewable). */
    JsonNode renewLease(AuthToken token, String leaseId, long increment) throws OpenBaoException {
        return call("sys/leases/renew", new String[] {token.value()},
                () -> body(vault(token.value()).leases().renew(leaseId, increment)));
    }

    /** POST sys/leases/revoke with the lease id in the body; OpenBao answers 204. */
    void revokeLease(AuthToken token, String leaseId) throws OpenBaoException {
        call("sys/leases/revoke", new String[] {token.value()}, () -> vault(token.value()).leases().revoke(leaseId));
    }

    private Vault vault(String token) throws VaultException {
        VaultConfig config = new VaultConfig()
                .environmentLoader(NO_ENVIRONMENT)
                .address(settings.address())
                .engineVersion(1)
                .openTimeout(seconds(settings.timeouts().connect()))
                .readTimeout(seconds(settings.timeouts().read()))
                .httpClient(http);
        if (ssl != null) {
            // The driver's sys/wrapping and sys/leases calls build their own HttpClient from this.
            config.sslConfig(ssl);
        }
        if (!settings.namespace().isEmpty()) {
            config.nameSpace(settings.namespace());
        }
        if (token != null) {
            config.token(token);
        }
        return Vault.create(config.build());
    }

    /** The token of an answer with an {@code auth} block (API docs: login, token create, unwrap of either). */
    private AuthToken grant(AuthResponse r, String what) throws OpenBaoException {
        String token = r.getAuthClientToken();
        if (token == null || token.isBlank()) {
            throw new OpenBaoException("OpenBao's answer to " + what + " holds no auth.client_token", r.getRestResponse().getStatus());
        }
        return new AuthToken(token, r.getAuthLeaseDuration(), r.isAuthRenewable(), clock.instant());
    }

    private static int seconds(Duration d) {
        return (int) Math.max(1, (d.toMillis() + 999) / 1000);
    }

    private static JsonNode body(VaultResponse response) throws IOException {
        byte[] body = response.getRestResponse().getBody();
        return body == null || body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
    }

    private interface Call<T> {
        T run() throws Exception;
    }

    /** Runs a driver call; every failure becomes an OpenBaoException that names no credential. */
    private <T> T call(String what, String[] sent, Call<T> call) throws OpenBaoException {
        try {
            return call.run();
        } catch (OpenBaoException e) {
            throw e;
        } catch (VaultException e) {
            int status = e.getHttpStatusCode();
            if (status == 0) {
                Throwable root = e;
                while (root.getCause() != null && root.getCause() != root) {
                    root = root.getCause();
                }
                throw new OpenBaoException("OpenBao at " + settings.address() + " is unreachable for " + what
                        + " (" + root.getClass().getSimpleName() + ")", OpenBaoException.NO_ANSWER);
            }
            throw failure(what, status, OpenBaoErrors.bodyOf(e), sent);
        } catch (IOException e) {
            throw new OpenBaoException("OpenBao's answer to " + what + " is not valid JSON", 200);
        } catch (Exception e) {
            // A driver or parsing bug: its text is unknown, so only the type is named.
            throw new OpenBaoException("OpenBao " + what + " failed (" + e.getClass().getSimpleName() + ")", OpenBaoException.NO_ANSWER);
        }
    }

    private OpenBaoException failure(String what, int status, byte[] body, String[] sent) {
        String errors = OpenBaoErrors.describe(body, sent);
        return new OpenBaoException("OpenBao refused " + what + ": " + OpenBaoException.meaning(status)
                + (errors.isEmpty() ? "" : " (" + errors + ")"), status);
    }
}
