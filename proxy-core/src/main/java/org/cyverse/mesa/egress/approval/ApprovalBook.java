package org.cyverse.mesa.egress.approval;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Policy;
import org.cyverse.mesa.egress.allowlist.Rule;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.approval.Approval.State;

/**
 * The approval inbox's state (A1): requests asked for, decided, and the grants in force. One per
 * proxy: a reload keeps it; {@link ApprovalStateFile} keeps it across a restart. Thread-safe.
 *
 * <p>Expiry is exact: every call first ends what has run out (a pending request at
 * {@code first_seen + pending_ttl}, a grant at its TTL), so a grant never lets a request through
 * after its time even if no timer ran; {@link #sweep} does the same when there is no traffic, so
 * that the audit log hears of an expiry when it happens.
 */
public final class ApprovalBook {

    /** Told of every change, outside the book's lock. */
    public interface Listener {
        /**
         * @param outcome {@code requested}, {@code approved}, {@code denied}, {@code expired} (a
         *     pending request no one decided) or {@code grant_expired}
         */
        void changed(String outcome, Approval approval);
    }

    /** What {@link #ask} made of a refused request. */
    public record Ask(Approval approval, boolean full) {
        /** Whether the request joins (or opened) a pending approval. */
        public boolean pending() {
            return approval != null && approval.state() == State.PENDING;
        }
    }

    /** The answer to an approve or deny call: 200, 400, 404 or 410, with a sentence. */
    public record Result(int status, String message, Approval approval) {}

    /** Decided and expired approvals kept for {@code GET /approvals}, beyond those still in force. */
    static final int HISTORY = 500;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Clock clock;
    private final Listener listener;
    private final Map<String, Approval> byId = new LinkedHashMap<>();
    /** The approval a host and port's next request is looked up in ({@code host:port}): its latest. */
    private final Map<String, String> latestByHost = new LinkedHashMap<>();
    private Duration pendingTtl = Duration.ofMinutes(15);
    private int maxPending = 100;
    private String profile = "";
    private Policy grants;
    private Instant nextExpiry;

    public ApprovalBook(Clock clock, Listener listener) {
        this.clock = clock;
        this.listener = listener;
    }

    /** Takes a config's settings (a reload keeps every approval). */
    public synchronized void configure(String profileName, Duration ttl, int max) {
        this.profile = profileName;
        this.pendingTtl = ttl;
        this.maxPending = max;
        grants = null;
    }

    /**
     * The policy's decision for a target that only a grant could allow: ALLOW (or
     * NEEDS_INSPECTION, for a grant restricting methods on an opaque CONNECT) naming the
     * approval, or the grant's refusal of a method or path it does not give; {@code null} when no
     * grant covers the host and port.
     */
    public Decision grant(Target target) {
        Decision decision = changing((now, changes) -> {
            if (grants == null) {
                List<Rule> rules = new ArrayList<>();
                for (Approval a : byId.values()) {
                    if (a.state() == State.APPROVED) {
                        rules.add(a.granted().rule(a.id()));
                    }
                }
                grants = new Policy(profile, List.of(), rules);
            }
            return grants.allowRules().isEmpty() ? null : grants.decide(target);
        });
        if (decision == null || decision.outcome() == Decision.Outcome.DENY && (decision.rule() == null
                || decision.reason() == Decision.Reason.PORT_NOT_ALLOWED)) {
            return null; // no grant for this host and port: another port of a granted host may be asked for
        }
        return decision; // allowed, or a method or path the grant does not give (named)
    }

    /**
     * A request refused only for its host: joins the pending approval of its host and port (count
     * and last seen updated; what it asks for never grows after an operator saw it), or opens
     * one; a host and port denied lately get the denial back, and with {@code max_pending}
     * pending a new one gets {@code full}.
     */
    public Ask ask(String host, int port) {
        return changing((now, changes) -> askLocked(host, port, now, changes));
    }

    private Ask askLocked(String host, int port, Instant now, List<Change> changes) {
        String key = key(host, port);
        String latest = latestByHost.get(key);
        Approval current = latest == null ? null : byId.get(latest);
        if (current != null && current.state() == State.PENDING) {
            Approval joined = current.askedAgain(now);
            byId.put(joined.id(), joined);
            return new Ask(joined, false);
        }
        if (current != null && current.state() == State.DENIED && now.isBefore(current.expires())) {
            return new Ask(current, false);
        }
        long pending = byId.values().stream().filter(a -> a.state() == State.PENDING).count();
        if (pending >= maxPending) {
            return new Ask(null, true);
        }
        String id = "apr_" + HexFormat.of().formatHex(randomBytes());
        Approval opened = new Approval(id, ApprovalScope.of(host, port), State.PENDING, 1, now, now, now.plus(pendingTtl), null, null,
                null, null);
        byId.put(id, opened);
        latestByHost.put(key, id);
        if (nextExpiry == null || opened.expires().isBefore(nextExpiry)) {
            nextExpiry = opened.expires();
        }
        changes.add(new Change("requested", opened));
        trim();
        return new Ask(opened, false);
    }

    /**
     * Approves pending {@code id} for {@code scope} ({@code null}: exactly what was asked) until
     * {@code ttl} from now ({@code null}: the job's lifetime).
     */
    public Result approve(String id, ApprovalScope scope, Duration ttl, String by) {
        return changing((now, changes) -> {
            Approval a = byId.get(id);
            Result undecidable = undecidable(id, a);
            if (undecidable != null) {
                return undecidable;
            }
            ApprovalScope granted = scope == null ? a.asked() : scope;
            String wider = granted.widening(a.asked());
            if (wider != null) {
                return new Result(400, wider, a);
            }
            Approval approved = a.approved(granted, ttl == null ? null : now.plus(ttl), by, now);
            byId.put(id, approved);
            grants = null;
            nextExpiry = null;
            changes.add(new Change("approved", approved));
            return new Result(200, "approved " + granted.describe() + (ttl == null ? " for the job" : " for " + ApprovalTtl.describe(ttl)),
                    approved);
        });
    }

    /** Denies pending {@code id}: the host's requests are refused without a new request for {@code pending_ttl}. */
    public Result deny(String id, String by) {
        return changing((now, changes) -> {
            Approval a = byId.get(id);
            Result undecidable = undecidable(id, a);
            if (undecidable != null) {
                return undecidable;
            }
            Approval denied = a.denied(by, now, now.plus(pendingTtl));
            byId.put(id, denied);
            changes.add(new Change("denied", denied));
            return new Result(200, "denied " + a.asked().describe(), denied);
        });
    }

    private static Result undecidable(String id, Approval a) {
        if (a == null) {
            return new Result(404, "no approval " + id + " (GET /approvals lists them)", null);
        }
        return switch (a.state()) {
            case PENDING -> null;
            case EXPIRED -> new Result(410, "approval " + id + " expired undecided at " + a.expires() + "; the agent's next request asks again", a);
            case APPROVED, GRANT_EXPIRED -> new Result(410, "approval " + id + " was already approved at " + a.decidedAt(), a);
            case DENIED -> new Result(410, "approval " + id + " was already denied at " + a.decidedAt(), a);
        };
    }

    /** Every approval, oldest first: pending, in force and the recent history. */
    public List<Approval> list() {
        return changing((now, changes) -> List.copyOf(byId.values()));
    }

    /** Whether approval {@code id} is still undecided. */
    public synchronized boolean isPending(String id) {
        Approval a = byId.get(id);
        return a != null && a.state() == State.PENDING && now().isBefore(a.expires());
    }

    /** Pending approvals now. */
    public synchronized int pending() {
        return (int) byId.values().stream().filter(a -> a.state() == State.PENDING).count();
    }

    /** Ends what has run out, telling the listener: for a timer, when no request comes to do it. */
    public void sweep() {
        changing((now, changes) -> null);
    }

    /**
     * Runs {@code step} under the book's lock, after ending what ran out by now; the changes it
     * and the expiry made are told to the listener after the lock is left.
     */
    private <T> T changing(java.util.function.BiFunction<Instant, List<Change>, T> step) {
        List<Change> changes = new ArrayList<>();
        T result;
        synchronized (this) {
            Instant now = now();
            expire(now, changes);
            result = step.apply(now, changes);
        }
        fire(changes);
        return result;
    }

    /**
     * Puts back approvals from the state file at start: pending and in-force ones as they were
     * (those that ran out while the proxy was down expire now, audited), the rest as history.
     */
    public void restore(List<Approval> saved) {
        List<Change> changes = new ArrayList<>();
        synchronized (this) {
            for (Approval a : saved) {
                byId.put(a.id(), a);
                latestByHost.put(key(a.asked().host(), a.asked().ports().iterator().next()), a.id());
            }
            grants = null;
            nextExpiry = null;
            expire(now(), changes);
            trim();
        }
        fire(changes);
    }

    private void expire(Instant now, List<Change> changes) {
        if (nextExpiry != null && now.isBefore(nextExpiry)) {
            return;
        }
        Instant next = null;
        for (Approval a : List.copyOf(byId.values())) {
            Instant deadline = switch (a.state()) {
                case PENDING -> a.expires();
                case APPROVED -> a.grantExpires();
                default -> null;
            };
            if (deadline == null) {
                continue;
            }
            if (!now.isBefore(deadline)) {
                Approval ended = a.to(a.state() == State.PENDING ? State.EXPIRED : State.GRANT_EXPIRED, now);
                byId.put(a.id(), ended);
                if (a.state() == State.APPROVED) {
                    grants = null;
                }
                changes.add(new Change(a.state() == State.PENDING ? "expired" : "grant_expired", ended));
            } else if (next == null || deadline.isBefore(next)) {
                next = deadline;
            }
        }
        nextExpiry = next == null ? Instant.MAX : next;
    }

    /** Keeps the history bounded: the oldest approvals that are neither pending nor in force go first. */
    private void trim() {
        int excess = byId.size() - HISTORY;
        for (Iterator<Approval> it = byId.values().iterator(); it.hasNext() && excess > 0; ) {
            Approval a = it.next();
            if (a.state() != State.PENDING && a.state() != State.APPROVED && !(a.state() == State.DENIED
                    && now().isBefore(a.expires()))) {
                it.remove();
                latestByHost.remove(key(a.asked().host(), a.asked().ports().iterator().next()), a.id());
                excess--;
            }
        }
    }

    private void fire(List<Change> changes) {
        for (Change c : changes) {
            listener.changed(c.outcome(), c.approval());
        }
    }

    private static String key(String host, int port) {
        return host + ":" + port;
    }

    /** Now, to the millisecond: the times an inbox shows. */
    private Instant now() {
        return clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[10];
        RANDOM.nextBytes(b);
        return b;
    }

    private record Change(String outcome, Approval approval) {}
}
