package org.cyverse.mesa.egress.proxy.approval;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.approval.Approval;
import org.cyverse.mesa.egress.approval.ApprovalBook;
import org.cyverse.mesa.egress.approval.ApprovalStateFile;
import org.cyverse.mesa.egress.approval.ApprovalWebhook;
import org.cyverse.mesa.egress.audit.AuditRecord;
import org.cyverse.mesa.egress.audit.AuditSink;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.proxy.HostFacts;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;

/**
 * The approval inbox of the running proxy: its {@link ApprovalBook}, and what each change sets
 * off: an audit record ({@code mode: approval}), the metrics, the state file (written off the
 * event loops, coalesced), the webhook, and the sweep that expires approvals when there is no
 * traffic.
 */
public final class ApprovalInbox implements ApprovalBook.Listener, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ApprovalInbox.class.getName());

    private final ApprovalBook book;
    private final AuditSink audit;
    private final ProxyMetrics metrics;
    private final ScheduledExecutorService background;
    private final AtomicBoolean saveQueued = new AtomicBoolean();
    private volatile ApprovalStateFile stateFile;
    private volatile String profile = "";
    private volatile boolean enabled;
    private final Clock clock;
    private final java.util.Map<String, org.cyverse.mesa.egress.injector.SecretSource> sources;
    private volatile ApprovalWebhook webhook;
    private final HeldRequests held;
    /** The webhook's own thread: fetching its key or waiting on its receiver never holds up the shared background threads. */
    private final ScheduledExecutorService webhookThread = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            HostFacts.daemon("mesa-egress-webhook"));
    private java.util.concurrent.ScheduledFuture<?> sweeper;

    /** @param sources the secret sources, for the webhook's key */
    public ApprovalInbox(Clock clock, AuditSink audit, ProxyMetrics metrics, ScheduledExecutorService background,
            java.util.Map<String, org.cyverse.mesa.egress.injector.SecretSource> sources) {
        this.book = new ApprovalBook(clock, this);
        this.held = new HeldRequests(book::isPending);
        this.clock = clock;
        this.sources = sources;
        this.audit = audit;
        this.metrics = metrics;
        this.background = background;
    }

    /** The book of pending and decided approvals. */
    public ApprovalBook book() {
        return book;
    }

    /** The requests waiting for a decision ({@code approvals.hold}). */
    public HeldRequests held() {
        return held;
    }

    /** Whether the config in force has {@code approvals.enabled}. */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Takes a config's {@code approvals}: the first one with a state file restores what it holds
     * (a restart inside the job keeps its approvals); later reloads keep the book as it is.
     */
    public void configure(MesaConfig config) throws java.io.IOException {
        MesaConfig.Approvals a = config.approvals();
        MesaConfig.Approvals.Webhook hook = a.enabled() ? a.webhook() : null;
        ApprovalWebhook current = webhook;
        if (hook == null || current == null || !current.same(hook.url(), hook.secret())) {
            if (current != null) {
                current.close(); // its retries to the old URL, with the old key, are dropped
            }
            webhook = hook == null ? null : new ApprovalWebhook(hook.url(), hook.secret(), sources,
                    org.cyverse.mesa.egress.tls.UpstreamTls.jdkContext(config.tls().upstreamCa()), webhookThread, metrics::webhookDelivery, clock);
        }
        profile = config.profile().name();
        enabled = a.enabled();
        book.configure(profile, a.pendingTtl(), a.maxPending());
        if (a.enabled() && a.stateFile() != null && (stateFile == null || !stateFile.path().equals(a.stateFile()))) {
            boolean first = stateFile == null;
            stateFile = new ApprovalStateFile(a.stateFile());
            if (first) {
                book.restore(stateFile.load());
            }
            queueSave();
        }
        if (a.enabled() && sweeper == null) {
            sweeper = background.scheduleWithFixedDelay(() -> {
                book.sweep();
                metrics.approvalsPending(book.pending()); // also corrects a gauge two changes set out of order
            }, 1, 1, TimeUnit.SECONDS);
        }
    }

    @Override
    public void changed(String outcome, Approval a) {
        metrics.approval(outcome, book.pending());
        int port = a.asked().ports().iterator().next();
        boolean approved = outcome.equals("approved");
        Reason reason = switch (outcome) {
            case "requested", "expired" -> Reason.APPROVAL_REQUIRED;
            case "approved" -> Reason.ALLOWED;
            default -> Reason.HOST_NOT_ALLOWED;
        };
        String rule = "approval " + a.id() + ": " + switch (outcome) {
            case "requested" -> a.asked().describe() + " requested, expires " + a.expires();
            case "approved" -> a.granted().describe() + " granted by " + a.decidedBy() + (a.grantExpires() == null ? " for the job"
                    : " until " + a.grantExpires());
            case "denied" -> a.asked().describe() + " denied by " + a.decidedBy();
            case "expired" -> a.asked().describe() + " expired undecided";
            default -> a.granted().describe() + " grant ended";
        };
        audit.record(AuditRecord.builder()
                .ts(Instant.now().toString())
                .profile(profile)
                .mode("approval")
                .method(outcome.toUpperCase(Locale.ROOT))
                .host(a.asked().host())
                .port(port)
                .decision(approved ? "allow" : "deny")
                .reason(reason.code())
                .rule(rule)
                .status(approved ? 200 : 403)
                .build());
        if (!outcome.equals("requested") || a.count() == 1) {
            LOG.info(rule);
        }
        if (!outcome.equals("requested")) {
            held.decided(a.id()); // approved, denied or expired: the requests waiting for it are decided again
        }
        ApprovalWebhook hook = webhook;
        if (hook != null) {
            hook.send(outcome, a, profile);
        }
        queueSave();
    }

    private void queueSave() {
        ApprovalStateFile file = stateFile;
        if (file == null || !saveQueued.compareAndSet(false, true)) {
            return;
        }
        background.execute(() -> {
            try {
                synchronized (file) {
                    // Cleared inside the lock: a change after this snapshot queues another save, which waits for this one.
                    saveQueued.set(false);
                    file.save(book.list());
                }
            } catch (IOException | RuntimeException e) {
                LOG.warning("approvals.state_file " + file.path() + " could not be written: " + e.getMessage()
                        + "; approvals stay in force, but a restart would lose the changes since the last write");
            }
        });
    }

    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.cancel(false);
        }
        ApprovalWebhook hook = webhook;
        if (hook != null) {
            hook.close();
        }
        webhookThread.shutdownNow();
    }
}
