package org.cyverse.mesa.egress.proxy.server;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.audit.AuditSink;
import org.cyverse.mesa.egress.config.InterceptMode;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.SecretSource;
import org.cyverse.mesa.egress.injector.SecretSources;
import org.cyverse.mesa.egress.injector.budget.CredentialBudgets;
import org.cyverse.mesa.egress.proxy.Drain;
import org.cyverse.mesa.egress.proxy.HostFacts;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.admin.AdminCalls;
import org.cyverse.mesa.egress.proxy.admin.AdminHandler;
import org.cyverse.mesa.egress.proxy.admin.AdminPipelines;
import org.cyverse.mesa.egress.proxy.admin.AdminToken;
import org.cyverse.mesa.egress.proxy.admin.KillSwitch;
import org.cyverse.mesa.egress.proxy.admin.OperatorControls;
import org.cyverse.mesa.egress.proxy.agent.AgentPipelines;
import org.cyverse.mesa.egress.proxy.agent.ClientHandler;
import org.cyverse.mesa.egress.proxy.approval.ApprovalInbox;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.observe.LogRedaction;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamDialer;
import org.cyverse.mesa.egress.tls.InterceptionCa;
import org.cyverse.mesa.egress.tls.LeafCertificates;

/**
 * The running proxy: the proxy listener, the admin listener, and the config snapshot they decide
 * with. {@link #reload} swaps the snapshot atomically; {@link #stop} drains.
 */
public final class ProxyServer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ProxyServer.class.getName());

    private final AtomicReference<ProxyState> state;
    private final List<InetAddress> ownAddresses;
    private final ProxyMetrics metrics = new ProxyMetrics();
    private final AuditSink audit;
    private final ExecutorService dnsExecutor;
    /** Credential fetches and leaf minting: may block, never on an event loop. */
    private final ScheduledExecutorService backgroundExecutor;
    /** The secret sources by scheme; closed (OpenBao's leases revoked) on stop. */
    private final SecretSources secretSources;
    private final InterceptionCa ca;
    private final ProxyContext context;
    private final Listeners listeners = new Listeners(this::close);
    private volatile boolean listening;
    /** {@link LeafCertificates#warmUp} on the first ready answer (the kubelet then starts the agent's container) or a second after listening. */
    private volatile Runnable warmUp = () -> {};
    private final KillSwitch kill = new KillSwitch(); // pulled once, for the life of the process: a reload keeps it
    private final CredentialBudgets budgets = new CredentialBudgets(); // limits: a reload keeps what was counted
    private final ApprovalInbox inbox; // the approval inbox: a reload keeps it
    private final ProxyStates states;
    private final OperatorControls controls;
    /** Takes this proxy's secrets out of {@link LogRedaction} on close. */
    private final Runnable unregisterLogRedaction;

    /**
     * @param config the initial config
     * @param resolver how names are resolved ({@link HostResolver#SYSTEM} in production)
     * @param audit where audit records go; the server closes it on stop
     */
    public ProxyServer(MesaConfig config, HostResolver resolver, AuditSink audit) throws IOException {
        this(config, resolver, audit, Map.of());
    }

    /**
     * @param extraSources secret sources beyond {@code file:} and {@code env:} (e.g. OpenBao),
     *     by scheme
     */
    public ProxyServer(MesaConfig config, HostResolver resolver, AuditSink audit, Map<String, SecretSource> extraSources)
            throws IOException {
        this.ownAddresses = HostFacts.ownAddresses();
        this.audit = audit;
        this.secretSources = SecretSources.create(config.broker() == null ? null : config.broker().source(), extraSources, System.getenv());
        this.dnsExecutor = Executors.newFixedThreadPool(4, HostFacts.daemon("mesa-egress-dns"));
        this.backgroundExecutor = Executors.newScheduledThreadPool(2, HostFacts.daemon("mesa-egress-background"));
        this.inbox = new ApprovalInbox(java.time.Clock.systemUTC(), audit, metrics, backgroundExecutor, secretSources.bySchemes());
        try {
            this.ca = config.tls().intercept() == InterceptMode.NONE ? null
                    : InterceptionCa.loadOrCreate(config.tls().caCert(), config.tls().caKey(), config.tls().allowReadableKey());
            this.states = new ProxyStates(secretSources, backgroundExecutor, metrics, ownAddresses, kill, budgets, inbox, ca != null);
            this.state = new AtomicReference<>(states.create(config, null));
        } catch (IOException | RuntimeException e) {
            dnsExecutor.shutdownNow();
            backgroundExecutor.shutdownNow();
            secretSources.close();
            throw e;
        }
        LeafCertificates leaves = ca == null ? null : new LeafCertificates(ca, backgroundExecutor, metrics::leafCertificateIssued,
                config.tls().http2());
        ChannelGroup clients = new DefaultChannelGroup("clients", GlobalEventExecutor.INSTANCE);
        this.context = new ProxyContext(state, metrics, audit, new UpstreamDialer(resolver, dnsExecutor, listeners.transport()), clients,
                leaves, inbox.held());
        this.controls = new OperatorControls(kill, context, backgroundExecutor, secretSources);
        secretSources.onBrokerTokenRevoked(reason -> kill("OpenBao revoked the proxy's token"));
        this.unregisterLogRedaction = LogRedaction.add(line -> state.get().injector().redact(line));
    }

    /** Binds both listeners. */
    public void start() throws IOException {
        MesaConfig config = state.get().config();
        AdminToken token = AdminToken.load(config.control().tokenFile());
        controls.watchKillFile(config.control().killFile()); // a kill file already there: killed before the first request
        listeners.bindProxy(config.listen(), AgentPipelines.client(context, () -> new ClientHandler(context)));
        AdminHandler admin = new AdminHandler(metrics, this::notReadyReason, () -> ca == null ? null : ca.pem(),
                new AdminCalls(token, this::kill, audit, () -> state.get().profile(), inbox));
        listeners.bindAdmin(config.admin(), AdminPipelines.admin(admin));
        listening = true;
        if (context.leaves != null) { // the credentials' hosts are where interception is sure to be asked for
            context.leaves.prefetch(config.credentials().stream().flatMap(c -> c.hosts().stream()).map(HostPattern::exactName)
                    .filter(java.util.Objects::nonNull).toList());
            warmUp = () -> context.leaves.warmUp(state.get().upstreamTls());
            backgroundExecutor.schedule(warmUp, 1, TimeUnit.SECONDS); // no probe asked: a pod without probes, a test
        }
    }

    /** Channel of the proxy's listener (tests: its event loop). */
    Channel listener() {
        return listeners.proxy();
    }

    private String notReadyReason() {
        KillSwitch.Pulled pulled = kill.state();
        if (pulled != null) {
            return "egress killed at " + pulled.at() + " (" + pulled.trigger() + "); only a restart clears it";
        }
        String reason = listening ? state.get().credentials().notReadyReason() : "not listening yet";
        if (reason == null) {
            warmUp.run();
        }
        return reason;
    }

    /**
     * Pulls the kill switch (SPEC.md {@code POST /kill}): new requests are refused
     * {@code egress_killed} from now on, every client connection (tunnels, keep-alive, streams in
     * flight) is closed at once, and in the background every credential value is dropped, minted
     * keys are retired at their issuer, and OpenBao's leases revoked. Idempotent; survives reloads.
     */
    public KillSwitch.Outcome kill(String trigger) {
        return controls.kill(trigger, state.get());
    }

    /** Whether the kill switch was pulled. */
    public boolean killed() {
        return kill.pulled();
    }

    /**
     * The socket transport, the number of event loops and the TLS implementation, for the start-up
     * log line: "epoll, 2 event loops, BoringSSL".
     */
    public String transport() {
        return listeners.describe();
    }

    /** The interception CA, or {@code null} with {@code tls.intercept: none}. */
    public InterceptionCa ca() {
        return ca;
    }

    /** The proxy listener's bound address (the real port when the config asked for port 0). */
    public InetSocketAddress proxyAddress() {
        return listeners.proxyAddress();
    }

    /** The admin listener's bound address. */
    public InetSocketAddress adminAddress() {
        return listeners.adminAddress();
    }

    public ProxyMetrics metrics() {
        return metrics;
    }

    /** The config in force. */
    public MesaConfig config() {
        return state.get().config();
    }

    /**
     * Applies a new valid config to new requests (exchanges in flight finish under the old one).
     * Listen and admin addresses cannot move without a restart: a change is logged and ignored.
     */
    public void reload(MesaConfig next) throws IOException {
        ProxyState current = state.get();
        if (!next.listen().equals(current.config().listen()) || !next.admin().equals(current.config().admin())) {
            LOG.warning("listen/admin address changes take effect only after a restart");
        }
        if (!java.util.Objects.equals(next.broker(), current.config().broker())) {
            LOG.warning("broker.openbao changes take effect only after a restart; the running OpenBao session stays");
        }
        if (next.tls().intercept() != InterceptMode.NONE && ca == null) {
            LOG.warning("tls.intercept changed from none: interception starts only after a restart");
        }
        ProxyState fresh = states.create(next, current);
        if (fresh.credentials() != current.credentials()) {
            fresh.credentials().awaitResolved(RELOAD_CREDENTIAL_WAIT);
        }
        state.set(fresh);
        if (fresh.credentials() != current.credentials()) {
            current.credentials().close();
            controls.retireLater(current.credentials()); // the old config's minted keys, once exchanges in flight had a moment
        }
        metrics.reload(true);
    }

    /** How long a reload with new credentials waits for them before it applies anyway. */
    private static final Duration RELOAD_CREDENTIAL_WAIT = Duration.ofSeconds(5);

    /** Counts a reload that was refused (the running config stays). */
    public void reloadFailed() {
        metrics.reload(false);
    }

    /**
     * Stops accepting, lets open exchanges finish for at most {@code drain}, then closes
     * everything. Idle keep-alive connections close at once.
     *
     * @return whether every connection finished within {@code drain}
     */
    public boolean stop(Duration drain) {
        context.draining = true;
        listening = false;
        listeners.stopAccepting();
        long deadline = System.nanoTime() + drain.toNanos();
        context.held.drain(); // held requests are answered now, not cut off at the end of the drain
        boolean drained = Drain.connections(context.clients, deadline);
        // Minted keys are blocked at their issuer before the process goes: retried within what is
        // left of the drain window, at least a few seconds.
        long left = Math.max(TimeUnit.SECONDS.toNanos(3), deadline - System.nanoTime());
        state.get().credentials().stop(Duration.ofNanos(left));
        close();
        return drained;
    }

    /** Closes at once, without draining. */
    @Override
    public void close() {
        listening = false;
        listeners.close();
        context.clients.close();
        listeners.shutdown();
        dnsExecutor.shutdownNow();
        controls.close();
        inbox.close();
        backgroundExecutor.shutdownNow();
        state.get().credentials().close();
        secretSources.close(); // revokes the OpenBao leases it holds, within its own time budget
        audit.close();
        unregisterLogRedaction.run();
    }

    /** The host's own interface addresses, which the address guard refuses (the proxy's, and {@code check}'s). */
    public static List<InetAddress> hostAddresses() {
        return HostFacts.ownAddresses();
    }
}
