package org.cyverse.mesa.egress.proxy.body;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The request body bytes held for scanning by all connections at once, against
 * {@code limits.scan_hold_total_bytes}: without it, {@code max_connections} clients could each
 * hold {@code scan_hold_bytes} and exhaust the proxy's memory. Thread-safe.
 */
public final class HoldBudget {

    private final AtomicLong held = new AtomicLong();

    /** Takes {@code bytes} if the total stays within {@code max}; whether it did. */
    public boolean take(long bytes, long max) {
        while (true) {
            long now = held.get();
            if (now + bytes > max) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} taken before. */
    public void give(long bytes) {
        held.addAndGet(-bytes);
    }

    /** Bytes held now. */
    long held() {
        return held.get();
    }
}
