package org.cyverse.mesa.egress.injector.openbao;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How the proxy reaches OpenBao and logs in there ({@code broker.openbao} of SPEC.md, already
 * validated by the config loader). The injector cannot see the config classes, so the proxy maps
 * its config onto this record.
 *
 * @param address {@code https://host:port} (or {@code http://} for a test server)
 * @param namespace sent as {@code X-Vault-Namespace}; {@code ""} for none
 * @param caCertPath PEM file with the CA certificates that OpenBao's server certificate chains to,
 *     or {@code null} for the system trust store
 * @param method how the proxy logs in
 * @param mount the auth method's mount ({@code auth/<mount>/login}); ignored by {@code token} and {@code wrapped}
 * @param role the role for {@code kubernetes} and {@code jwt}
 * @param jwtFile the JWT for {@code kubernetes} and {@code jwt}, re-read at each login
 * @param tokenFile the token for {@code token}, re-read when it changes
 * @param wrappedTokenFile the response-wrapped token for {@code wrapped}
 * @param timeouts network timeouts and cache bounds
 */
public record OpenBaoSettings(String address, String namespace, Path caCertPath, AuthMethod method, String mount,
        String role, Path jwtFile, Path tokenFile, Path wrappedTokenFile, Timeouts timeouts) {

    /** The four ways to log in of SPEC.md. */
    public enum AuthMethod {
        KUBERNETES, JWT, TOKEN, WRAPPED;

        /** @throws IllegalArgumentException for anything but kubernetes, jwt, token or wrapped */
        public static AuthMethod of(String name) {
            for (AuthMethod m : values()) {
                if (m.configName().equals(name)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("OpenBao auth method must be kubernetes, jwt, token or wrapped, got \"" + name + "\"");
        }

        /** The name as written in the config file. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param connect TCP and TLS connect timeout (whole seconds: the driver counts in seconds)
     * @param read how long one answer may take (whole seconds)
     * @param kvTtl how long a KV value is used before it is read again: KV secrets carry no
     *     lease, so this bounds how long a revoked or changed value can still be injected
     * @param closeBudget how long {@code close()} spends revoking leases at most
     */
    public record Timeouts(Duration connect, Duration read, Duration kvTtl, Duration closeBudget) {
        public Timeouts {
            Objects.requireNonNull(connect, "connect");
            Objects.requireNonNull(read, "read");
            Objects.requireNonNull(kvTtl, "kvTtl");
            Objects.requireNonNull(closeBudget, "closeBudget");
            if (kvTtl.isNegative() || kvTtl.isZero()) {
                throw new IllegalArgumentException("kvTtl must be positive");
            }
        }

        /** Connect 5 s, read 10 s, KV values re-read every 5 min at the latest, 5 s to revoke leases on close. */
        public static Timeouts defaults() {
            return new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofSeconds(5));
        }

        /** The same timeouts with another KV cache lifetime. */
        public Timeouts withKvTtl(Duration ttl) {
            return new Timeouts(connect, read, ttl, closeBudget);
        }
    }

    public OpenBaoSettings {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(method, "method");
        namespace = namespace == null ? "" : namespace;
        mount = mount == null || mount.isBlank() ? method.configName() : mount;
        timeouts = timeouts == null ? Timeouts.defaults() : timeouts;
        switch (method) {
            case KUBERNETES, JWT -> {
                Objects.requireNonNull(role, "role (for method " + method.configName() + ")");
                Objects.requireNonNull(jwtFile, "jwtFile (for method " + method.configName() + ")");
            }
            case TOKEN -> Objects.requireNonNull(tokenFile, "tokenFile (for method token)");
            case WRAPPED -> Objects.requireNonNull(wrappedTokenFile, "wrappedTokenFile (for method wrapped)");
        }
    }
}
