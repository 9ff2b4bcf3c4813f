package org.cyverse.mesa.egress.injector.budget;

import java.util.Arrays;

/**
 * Bytes counted over the last hour, in one-minute buckets: a sliding window that forgets a
 * minute's bytes 60 minutes after that minute. Not thread-safe (its owner locks).
 */
final class ByteWindow {

    static final long MINUTE_NANOS = 60_000_000_000L;
    private static final int MINUTES = 60;

    private final long[] minute = new long[MINUTES];
    private final long[] amount = new long[MINUTES];

    ByteWindow() {
        Arrays.fill(minute, Long.MIN_VALUE);
    }

    void add(long bytes, long now) {
        if (bytes <= 0) {
            return;
        }
        long m = Math.floorDiv(now, MINUTE_NANOS);
        int i = (int) Math.floorMod(m, MINUTES);
        if (minute[i] != m) {
            minute[i] = m;
            amount[i] = 0;
        }
        amount[i] = saturatedAdd(amount[i], bytes);
    }

    /** The bytes counted in the hour up to {@code now}. */
    long total(long now) {
        long current = Math.floorDiv(now, MINUTE_NANOS);
        long sum = 0;
        for (int i = 0; i < MINUTES; i++) {
            if (minute[i] > current - MINUTES && minute[i] <= current) {
                sum = saturatedAdd(sum, amount[i]);
            }
        }
        return sum;
    }

    /**
     * How long until the hour's total falls below {@code limit}: 0 when it is below now,
     * otherwise the time until enough of the oldest minutes have left the window.
     */
    long nanosUntilBelow(long limit, long now) {
        long sum = total(now);
        if (sum < limit) {
            return 0;
        }
        long current = Math.floorDiv(now, MINUTE_NANOS);
        for (long m = current - MINUTES + 1; m <= current; m++) {
            int i = (int) Math.floorMod(m, MINUTES);
            if (minute[i] == m) {
                sum -= amount[i];
                if (sum < limit) {
                    return (m + MINUTES) * MINUTE_NANOS - now; // when minute m leaves the window
                }
            }
        }
        return MINUTES * MINUTE_NANOS; // only the current minute remains: an hour from its start at most
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
