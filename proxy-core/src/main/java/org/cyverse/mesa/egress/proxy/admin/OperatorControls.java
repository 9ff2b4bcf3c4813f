package org.cyverse.mesa.egress.proxy.admin;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.audit.AuditRecord;
import org.cyverse.mesa.egress.injector.CredentialStore;
import org.cyverse.mesa.egress.injector.SecretSources;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;

/**
 * What the kill switch does, and its triggers besides {@code POST /kill}: the kill file, polled
 * every second (a Kubernetes ConfigMap or Secret flip; content is read, not timestamps, as for the
 * config), and OpenBao revoking the proxy's token ({@link org.cyverse.mesa.egress.proxy.server.ProxyServer} wires that one).
 */
public final class OperatorControls implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(OperatorControls.class.getName());
    /** How long the background part of a kill may spend retiring minted keys at their issuer. */
    static final Duration RETIRE_BUDGET = Duration.ofSeconds(10);
    private static final long KILL_FILE_PERIOD_MILLIS = 1000;

    private final KillSwitch kill;
    private final ProxyContext context;
    private final ScheduledExecutorService executor;
    private final SecretSources sources;
    private volatile ScheduledFuture<?> watch;

    /** The controls of {@code kill}, acting on {@code context}: {@code executor} runs the kill file's poll and a kill's background part. */
    public OperatorControls(KillSwitch kill, ProxyContext context, ScheduledExecutorService executor, SecretSources sources) {
        this.kill = kill;
        this.context = context;
        this.executor = executor;
        this.sources = sources;
    }

    /**
     * Pulls the switch. On the first pull: counted, logged, audited; every client connection
     * closed now (the relays close their upstreams with them); then, off the caller's thread,
     * every credential value dropped, minted keys retired, OpenBao leases revoked.
     */
    public KillSwitch.Outcome kill(String trigger, ProxyState state) {
        KillSwitch.Outcome outcome = kill.pull(trigger);
        if (!outcome.first()) {
            return outcome;
        }
        context.metrics.killSwitchPulled();
        int open = context.clients.size();
        context.clients.close();
        LOG.severe("KILL SWITCH pulled (" + trigger + "): " + open + " client connection(s) closed; every request is refused"
                + " egress_killed until a restart; dropping credential values, retiring minted keys, revoking OpenBao leases");
        context.audit.record(AuditRecord.builder()
                .ts(outcome.pulled().at().toString())
                .profile(state.profile())
                .mode("admin")
                .method("KILL")
                .decision("deny")
                .reason(Reason.EGRESS_KILLED.code())
                .rule("kill: " + trigger)
                .status(403)
                .build());
        CredentialStore store = state.credentials();
        Runnable rest = () -> {
            try {
                int left = store.kill(RETIRE_BUDGET);
                sources.close(); // revokes what OpenBao leased to the proxy
                LOG.severe("kill switch: credential values dropped; " + (left == 0 ? "every minted key retired"
                        : left + " minted key(s) could not be retired (see above)") + "; OpenBao leases revoked");
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "kill switch: cleaning up failed", e);
            }
        };
        try {
            executor.execute(rest);
        } catch (RejectedExecutionException e) {
            rest.run();
        }
        return outcome;
    }

    /** Checks {@code file} now and then every second; {@code null}: nothing to watch. */
    public void watchKillFile(Path file) {
        if (file == null) {
            return;
        }
        checkKillFile(file);
        watch = executor.scheduleWithFixedDelay(() -> {
            try {
                checkKillFile(file);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "kill file check failed", e);
            }
        }, KILL_FILE_PERIOD_MILLIS, KILL_FILE_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void checkKillFile(Path file) {
        if (!kill.pulled() && KillSwitch.fileAsksForKill(file)) {
            kill("admin.kill_file " + file + " appeared", context.state());
        }
    }

    /** Retires the minted keys of a store a reload replaced, after the exchanges still using them had a moment. */
    public void retireLater(CredentialStore replaced) {
        try {
            executor.schedule(() -> replaced.retireAll(RETIRE_BUDGET), CredentialStore.REPLACED_VALUE_GRACE.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.warning("cannot plan retiring the replaced config's minted keys: the executor is shut down");
        }
    }

    @Override
    public void close() {
        ScheduledFuture<?> w = watch;
        if (w != null) {
            w.cancel(false);
        }
    }
}
