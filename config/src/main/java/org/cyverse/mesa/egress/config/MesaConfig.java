package org.cyverse.mesa.egress.config;

import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.allowlist.Cidr;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.Policy;
import org.cyverse.mesa.egress.allowlist.Profile;
import org.cyverse.mesa.egress.allowlist.Rule;
import org.cyverse.mesa.egress.injector.BrokerSource;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoSecretSource;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoSettings.AuthMethod;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoSettings;
import org.cyverse.mesa.egress.injector.scan.DlpRule;

/**
 * A loaded, validated, normalized config file (SPEC.md "Config file"), with command-line
 * overrides applied. Immutable: the running proxy swaps a whole snapshot on reload.
 *
 * @param source the file it came from, or {@code null} for built-in defaults
 * @param profile the sandbox profile
 * @param egress the egress class in force (one the profile permits)
 * @param listen the proxy listener
 * @param admin the admin listener
 * @param control the operator controls of {@code admin:} (token, kill file)
 * @param approvals the approval inbox ({@link Approvals#OFF} without {@code approvals:})
 * @param policy the compiled policy: deny, then class rules plus {@code allow}; the one copy of the rules
 */
public record MesaConfig(
        Path source,
        Profile profile,
        EgressClass egress,
        HostAndPort listen,
        HostAndPort admin,
        Control control,
        Network network,
        Tls tls,
        List<CredentialSpec> credentials,
        Broker broker,
        Audit audit,
        Limits limits,
        Dlp dlp,
        Approvals approvals,
        Policy policy) {

    /**
     * {@code approvals:}, the approval inbox of A1 profiles.
     *
     * @param enabled whether a request refused only for its host may be approved
     * @param pendingTtl how long a pending request waits for a decision, from its first ask
     * @param hold how long a client's request is kept waiting for a decision; zero: refused at once
     * @param stateFile where pending requests and grants are kept across a restart, or {@code null}
     * @param webhook where events go, or {@code null}
     * @param maxPending at most this many pending requests at once (an extension)
     * @param maxHeld at most this many held requests at once (an extension)
     */
    public record Approvals(boolean enabled, Duration pendingTtl, Duration hold, Path stateFile, Webhook webhook, int maxPending,
            int maxHeld) {

        public static final Duration DEFAULT_PENDING_TTL = Duration.ofMinutes(15);
        public static final Duration MAX_HOLD = Duration.ofMinutes(5);
        public static final int DEFAULT_MAX_PENDING = 100;
        public static final int DEFAULT_MAX_HELD = 16;
        /** No {@code approvals:} section. */
        public static final Approvals OFF = new Approvals(false, DEFAULT_PENDING_TTL, Duration.ZERO, null, null, DEFAULT_MAX_PENDING,
                DEFAULT_MAX_HELD);

        /** {@code approvals.webhook}: the URL events are POSTed to, and the HMAC-SHA256 key they are signed with. */
        public record Webhook(URI url, SecretRef secret) {}
    }

    /**
     * {@code dlp:}: patterns of well-known secret formats the proxy does not hold.
     *
     * @param rules the pattern rules in force
     * @param authorizationEntropy whether a high-entropy {@code Authorization} token to a host no
     *     credential covers counts too ({@code authorization-high-entropy})
     */
    public record Dlp(Mode mode, List<DlpRule> rules, boolean authorizationEntropy) {

        /** {@code off}: nothing looked for; {@code audit}: recorded only; {@code block}: refused 403 {@code secret_leak}. */
        public enum Mode { OFF, AUDIT, BLOCK }

        public Dlp {
            rules = List.copyOf(rules);
        }

        /** Whether anything is looked for. */
        public boolean on() {
            return mode != Mode.OFF;
        }
    }

    /**
     * The operator controls of {@code admin:} (the map form).
     *
     * @param tokenFile {@code admin.token_file}: the bearer token every state-changing admin call
     *     needs, or {@code null}, when such calls are refused
     * @param killFile {@code admin.kill_file} (an extension): the kill switch is pulled when this
     *     file exists and holds anything but {@code false} or {@code 0}; or {@code null}
     */
    public record Control(Path tokenFile, Path killFile) {
        /** No token and no kill file. */
        public static final Control NONE = new Control(null, null);
    }

    /** {@code network:}. */
    public record Network(List<Cidr> allowPrivate, Duration dnsTimeout, Duration connectTimeout) {}

    /**
     * {@code tls:}.
     *
     * @param upstreamCa {@code null} for "system", else a PEM file added to the system trust
     * @param explainRefusals (an extension, default on) whether a refused CONNECT is answered inside
     *     TLS terminated with the interception CA, so that clients which show no CONNECT answer
     *     show the refusal's body
     * @param requireSni (an extension, default off) whether a tunnel's ClientHello without a
     *     server name is refused (400) instead of going to the CONNECT target's vetted address
     * @param allowReadableKey (an extension, default off) whether a CA key that its group or others
     *     may read is taken (with a warning) instead of refused: for a Kubernetes Secret mounted
     *     0440 whose group is the proxy's fsGroup alone
     */
    public record Tls(Path caCert, Path caKey, Path upstreamCa, InterceptMode intercept, boolean explainRefusals, boolean requireSni,
            boolean allowReadableKey, boolean http2) {

        /** With the defaults of {@code require_sni}, {@code allow_readable_key} and {@code http2} (all off). */
        public Tls(Path caCert, Path caKey, Path upstreamCa, InterceptMode intercept, boolean explainRefusals) {
            this(caCert, caKey, upstreamCa, intercept, explainRefusals, false, false, false);
        }

        /** With the default of {@code http2} (off, for now: README "HTTP/2"): intercepted clients speak HTTP/1.1. */
        public Tls(Path caCert, Path caKey, Path upstreamCa, InterceptMode intercept, boolean explainRefusals, boolean requireSni,
                boolean allowReadableKey) {
            this(caCert, caKey, upstreamCa, intercept, explainRefusals, requireSni, allowReadableKey, false);
        }
    }

    /**
     * {@code broker.openbao:}; {@code null} in {@link MesaConfig#broker()} when absent.
     *
     * @param kvRefresh {@code kv_refresh}: how long a KV v2 value is used before it is read again
     */
    public record Broker(String address, String namespace, Path caCert, Auth auth, Duration kvRefresh) {

        /** The default of {@code kv_refresh}: 5 minutes, as OpenBao Agent's static-secret interval. */
        public static final Duration DEFAULT_KV_REFRESH = Duration.ofMinutes(5);

        /** The injector's settings for this broker: connect 5 s, read 10 s, KV values re-read after {@code kv_refresh}. */
        public OpenBaoSettings settings() {
            return new OpenBaoSettings(address, namespace, caCert, auth.method(), auth.mount(), auth.role(), auth.jwtFile(),
                    auth.tokenFile(), auth.wrappedTokenFile(), OpenBaoSettings.Timeouts.defaults().withKvTtl(kvRefresh));
        }

        /** Makes this broker's secret source ({@code openbao:}); no call to OpenBao yet. */
        public BrokerSource.Factory source() {
            return () -> OpenBaoSecretSource.create(settings());
        }

        /** {@code broker.openbao.auth:}; {@code mount} defaults to the method's name. */
        public record Auth(AuthMethod method, String mount, String role, Path jwtFile, Path tokenFile, Path wrappedTokenFile) {}
    }

    /** {@code audit:}. */
    public record Audit(Sink sink) {

        /** {@code audit.sink}: {@code stdout}, or a file appended to. */
        public sealed interface Sink permits Stdout, AppendTo {}

        /** The process's standard output (the default). */
        public record Stdout() implements Sink {}

        /** A file, appended to (relative paths resolved against the config file's directory). */
        public record AppendTo(Path file) implements Sink {}

        /** The default: {@code sink: stdout}. */
        public static Audit stdout() {
            return new Audit(new Stdout());
        }
    }

    /**
     * {@code limits:}.
     *
     * @param scanHoldBytes request body bytes held back until scanned for secrets and sentinels:
     *     a body up to this size reaches the upstream only once all of it was found clean
     * @param scanHoldTotalBytes the most body bytes held for all requests at once (an extension):
     *     a request that would pass it is refused 503 {@code overloaded}
     * @param upstreamFirstByteTimeout how long an upstream may take to begin its answer (an extension,
     *     default 10 minutes: a slow LLM completion); {@code idleTimeout} then bounds each quiet stretch
     * @param websocketMaxMessageBytes the largest WebSocket message relayed (an extension): a message
     *     from the agent is held whole until it was found clean, so this bounds what one message holds;
     *     a larger one closes the connection with 1009
     * @param websocketIdleTimeout how long a WebSocket connection may stay quiet both ways (an
     *     extension, default 10 minutes: a session waiting for a person); pings count as traffic
     */
    public record Limits(int maxConnections, int maxHeaderBytes, Duration headerTimeout, Duration idleTimeout, int scanHoldBytes,
            long scanHoldTotalBytes, Duration upstreamFirstByteTimeout, int websocketMaxMessageBytes, Duration websocketIdleTimeout) {

        /** The default for {@code upstream_first_byte_timeout}. */
        public static final Duration DEFAULT_FIRST_BYTE_TIMEOUT = Duration.ofMinutes(10);
        /** The default for {@code websocket_max_message_bytes}: 16 MiB. */
        public static final int DEFAULT_WEBSOCKET_MAX_MESSAGE_BYTES = 16 << 20;
        /** The default for {@code websocket_idle_timeout}. */
        public static final Duration DEFAULT_WEBSOCKET_IDLE_TIMEOUT = Duration.ofMinutes(10);

        /** Limits with the default WebSocket limits. */
        public Limits(int maxConnections, int maxHeaderBytes, Duration headerTimeout, Duration idleTimeout, int scanHoldBytes,
                long scanHoldTotalBytes, Duration upstreamFirstByteTimeout) {
            this(maxConnections, maxHeaderBytes, headerTimeout, idleTimeout, scanHoldBytes, scanHoldTotalBytes, upstreamFirstByteTimeout,
                    DEFAULT_WEBSOCKET_MAX_MESSAGE_BYTES, DEFAULT_WEBSOCKET_IDLE_TIMEOUT);
        }

        /** Limits with the default first-byte timeout. */
        public Limits(int maxConnections, int maxHeaderBytes, Duration headerTimeout, Duration idleTimeout, int scanHoldBytes,
                long scanHoldTotalBytes) {
            this(maxConnections, maxHeaderBytes, headerTimeout, idleTimeout, scanHoldBytes, scanHoldTotalBytes, DEFAULT_FIRST_BYTE_TIMEOUT);
        }

        /** SPEC.md's default for {@code scan_hold_bytes}: 1 MiB. */
        public static final int DEFAULT_SCAN_HOLD_BYTES = 1 << 20;
        /** The default for {@code scan_hold_total_bytes}: 64 MiB. */
        public static final int DEFAULT_SCAN_HOLD_TOTAL_BYTES = 64 << 20;
    }

    /** The config file's {@code allow} entries, named {@code allow[i]}, as the policy holds them. */
    public List<Rule> allow() {
        return policy.allowRules().stream().filter(r -> r.name().startsWith("allow[")).toList();
    }

    /** The config file's {@code deny} entries, named {@code deny[i]}. */
    public List<Rule> deny() {
        return policy.denyRules();
    }

    /** The address guard this config asks for, given the host's own addresses. */
    public AddressGuard addressGuard(Collection<InetAddress> ownAddresses) {
        return new AddressGuard(network.allowPrivate(), ownAddresses);
    }

    /**
     * Whether the proxy terminates TLS for a CONNECT that {@code tunnel} decided: never with
     * {@code tls.intercept: none}; always with {@code all}; with {@code auto} only when method or
     * path rules need the request, or a credential covers the destination.
     */
    public boolean intercepts(Decision tunnel, Destination destination) {
        return switch (tls.intercept()) {
            case NONE -> false;
            case ALL -> true;
            case AUTO -> tunnel.outcome() == Decision.Outcome.NEEDS_INSPECTION || credentials.stream().anyMatch(c -> c.covers(destination));
        };
    }
}
