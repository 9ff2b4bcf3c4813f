package org.cyverse.mesa.egress.testkit;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples the memory in use of Netty's default allocator (the proxy's buffers: nothing else in a
 * test JVM uses Netty) every few milliseconds, and keeps the peak.
 */
public final class MemoryWatch implements AutoCloseable {

    private final AtomicLong peak = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread = new Thread(() -> {
        ByteBufAllocatorMetric metric = ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
        while (running.get()) {
            peak.accumulateAndGet(metric.usedDirectMemory() + metric.usedHeapMemory(), Math::max);
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }, "memory-watch");

    public MemoryWatch() {
        thread.setDaemon(true);
        thread.start();
    }

    /** The highest use seen so far, in bytes. */
    public long peak() {
        return peak.get();
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join();
    }
}
