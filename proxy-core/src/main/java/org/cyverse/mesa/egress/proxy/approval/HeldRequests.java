package org.cyverse.mesa.egress.proxy.approval;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.config.MesaConfig;

/**
 * {@code approvals.hold}: a request (or CONNECT) answered {@code approval_required} waits, with its
 * connection, for the approval's decision, at most {@code hold} and at most {@code max_held} at
 * once; then it is decided again, as if it had just arrived: approved in time, it goes through.
 * Held connections are open connections, counted against {@code max_connections} like any.
 * Thread-safe; each held request is resumed on its own channel's event loop.
 */
public final class HeldRequests {

    /** One held request. */
    public final class Held {
        private final String approval;
        private final ChannelHandlerContext ctx;
        private final Runnable resume;
        private final Runnable gone;
        private ScheduledFuture<?> timeout;
        private boolean done; // on ctx's event loop

        private Held(String approval, ChannelHandlerContext ctx, Runnable resume, Runnable gone) {
            this.approval = approval;
            this.ctx = ctx;
            this.resume = resume;
            this.gone = gone;
        }

        /** Decided, or timed out: decide the request again (on its loop). */
        private void wake() {
            ctx.executor().execute(() -> {
                if (end()) {
                    resume.run();
                }
            });
        }

        /** The client went away while held: nothing to resume; the refusal it was waiting on is recorded. */
        public void clientGone() {
            if (end()) {
                gone.run();
            }
        }

        private boolean end() {
            if (done) {
                return false;
            }
            done = true;
            if (timeout != null) {
                timeout.cancel(false);
            }
            forget(this);
            return true;
        }
    }

    private final Map<String, Set<Held>> byApproval = new HashMap<>();
    private final AtomicInteger count = new AtomicInteger();
    private final java.util.function.Predicate<String> pending;

    /** @param pending whether an approval is still undecided (checked once a request is held, so no decision is missed) */
    HeldRequests(java.util.function.Predicate<String> pending) {
        this.pending = pending;
    }

    /**
     * Holds the request refused by {@code verdict} when it asks for an approval and
     * {@code approvals.hold} allows; {@code resume} then runs on {@code ctx}'s event loop.
     *
     * @param gone runs instead when the client goes away while held
     * @return the hold, or {@code null} when the request is to be answered now
     */
    public Held hold(MesaConfig config, ChannelHandlerContext ctx, Verdict verdict, Runnable resume, Runnable gone) {
        MesaConfig.Approvals settings = config.approvals();
        if (verdict.reason() != Reason.APPROVAL_REQUIRED || settings.hold().isZero()) {
            return null;
        }
        if (count.incrementAndGet() > settings.maxHeld()) {
            count.decrementAndGet();
            return null; // approvals.max_held: answered at once
        }
        String approval = (String) verdict.refusal().details().get("approval_id");
        Held held = new Held(approval, ctx, resume, gone);
        synchronized (this) {
            byApproval.computeIfAbsent(approval, k -> new LinkedHashSet<>()).add(held);
        }
        Duration wait = settings.hold();
        held.timeout = ctx.executor().schedule(held::wake, wait.toMillis(), TimeUnit.MILLISECONDS);
        if (!pending.test(approval)) {
            held.wake(); // decided between the admission and this hold: no decision is waited for in vain
        }
        ctx.read(); // one read while held: a client that gives up is noticed (what else arrives waits, unhandled)
        return held;
    }

    /** The proxy stops: every held request is decided again now (and answered, as the proxy drains). */
    public void drain() {
        java.util.List<Held> all = new java.util.ArrayList<>();
        synchronized (this) {
            byApproval.values().forEach(all::addAll);
        }
        all.forEach(Held::wake);
    }

    /** The approval was decided (or expired): its held requests are decided again. */
    void decided(String approval) {
        Set<Held> waiting;
        synchronized (this) {
            waiting = byApproval.remove(approval);
        }
        if (waiting != null) {
            waiting.forEach(Held::wake);
        }
    }

    /** Requests held now. */
    int held() {
        return count.get();
    }

    private void forget(Held held) {
        count.decrementAndGet();
        synchronized (this) {
            Set<Held> set = byApproval.get(held.approval);
            if (set != null) {
                set.remove(held);
                if (set.isEmpty()) {
                    byApproval.remove(held.approval);
                }
            }
        }
    }
}
