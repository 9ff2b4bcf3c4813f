package org.cyverse.mesa.egress.injector.budget;

import org.cyverse.mesa.egress.injector.CredentialLimits;
import java.time.Duration;
import org.cyverse.mesa.egress.injector.CredentialLimits.Kind;

/**
 * One credential's budget: the starts of its most recent requests (exactly as many as
 * {@code requests_per_minute}, so a request is allowed when the oldest of them is more than a
 * minute old), the requests in flight, and the body bytes of the last hour each way. Not
 * thread-safe: {@link CredentialBudgets} locks around it.
 */
final class Budget {

    private static final long SECOND_NANOS = 1_000_000_000L;

    final String credential;
    private CredentialLimits limits;
    /** Ring of request start times; when full, {@code starts[next]} is the oldest. */
    private long[] starts;
    private int next;
    private int count;
    private int inFlight;
    private final ByteWindow sent = new ByteWindow();
    private final ByteWindow received = new ByteWindow();

    Budget(String credential, CredentialLimits limits) {
        this.credential = credential;
        this.limits = limits;
        this.starts = new long[limits.requestsPerMinute()];
    }

    CredentialLimits limits() {
        return limits;
    }

    /** New limits from a reload: what was counted stays counted (the most recent starts, requests in flight, bytes). */
    void reconfigure(CredentialLimits changed) {
        if (changed.requestsPerMinute() != limits.requestsPerMinute()) {
            long[] resized = new long[changed.requestsPerMinute()];
            int keep = Math.min(count, resized.length);
            for (int k = 0; k < keep; k++) {
                // the newest `keep` starts, oldest of them first
                resized[k] = starts[Math.floorMod(next - keep + k, starts.length)];
            }
            starts = resized;
            count = keep;
            next = resized.length == 0 ? 0 : keep % resized.length;
        }
        limits = changed;
    }

    /** The limit a request starting at {@code now} would pass, or {@code null}. */
    BudgetRefusal check(long now) {
        if (limits.requestsPerMinute() > 0 && count == starts.length) {
            long age = now - starts[next];
            if (age < ByteWindow.MINUTE_NANOS) {
                return refusal(Kind.REQUESTS_PER_MINUTE, ByteWindow.MINUTE_NANOS - age);
            }
        }
        if (limits.concurrent() > 0 && inFlight >= limits.concurrent()) {
            return refusal(Kind.CONCURRENT, SECOND_NANOS);
        }
        if (limits.requestBytesPerHour() > 0) {
            long wait = sent.nanosUntilBelow(limits.requestBytesPerHour(), now);
            if (wait > 0) {
                return refusal(Kind.REQUEST_BYTES_PER_HOUR, wait);
            }
        }
        if (limits.responseBytesPerHour() > 0) {
            long wait = received.nanosUntilBelow(limits.responseBytesPerHour(), now);
            if (wait > 0) {
                return refusal(Kind.RESPONSE_BYTES_PER_HOUR, wait);
            }
        }
        return null;
    }

    /** Counts a request starting at {@code now}; {@link #check} said yes. */
    void take(long now) {
        if (starts.length > 0) {
            starts[next] = now;
            next = (next + 1) % starts.length;
            count = Math.min(count + 1, starts.length);
        }
        inFlight++;
    }

    void moved(long bytesUp, long bytesDown, long now) {
        sent.add(bytesUp, now);
        received.add(bytesDown, now);
    }

    void release(long bytesUp, long bytesDown, long now) {
        inFlight = Math.max(0, inFlight - 1);
        moved(bytesUp, bytesDown, now);
    }

    int inFlight() {
        return inFlight;
    }

    private BudgetRefusal refusal(Kind kind, long waitNanos) {
        long seconds = Math.max(1, (waitNanos + SECOND_NANOS - 1) / SECOND_NANOS);
        return new BudgetRefusal(credential, kind, limits.of(kind), Duration.ofSeconds(seconds));
    }
}
