package org.cyverse.mesa.egress.audit;

import io.netty.util.internal.PlatformDependent;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.config.MesaConfig;

/**
 * An {@link AuditSink} that writes each {@link AuditRecord} as one line of an {@link AuditFormat}
 * (JSON lines: {@link JsonLinesFormat}) to a stream, {@code audit.sink}, on a thread of its own, so
 * that a slow sink (a full stdout pipe) does not stall an event loop.
 *
 * <p>The writer works in batches: while records keep coming it wakes every
 * {@value #BATCH_MILLIS} ms, writes what has queued and flushes once (one system call for the
 * batch); when a round finds nothing it sleeps until a record wakes it. An event loop therefore
 * pays for a queue insert, not for a thread wake-up and a write per request: on a one-CPU pod
 * those were a tenth of the proxy's CPU. A record reaches the sink within about
 * {@value #BATCH_MILLIS} ms, and everything queued is written on {@link #close()}.
 *
 * <p>The queue is bounded ({@value #CAPACITY} records); when it is full the caller waits rather
 * than dropping a record: an audit log with holes is worse than a slower proxy.
 */
public final class StreamSink implements AuditSink {

    private static final Logger LOG = Logger.getLogger(StreamSink.class.getName());
    static final int CAPACITY = 65_536;
    static final long BATCH_MILLIS = 10;

    private final Queue<AuditRecord> queue;
    /** True while the writer sleeps with nothing to do: the next record must wake it. */
    private final AtomicBoolean idle = new AtomicBoolean();
    private final AuditFormat format;
    private final OutputStream out;
    private final boolean closeOut;
    private final Thread writer;
    private volatile boolean stopping;

    /** A sink writing {@code format}'s lines to {@code out}; {@code closeOut} closes it on {@link #close()}. */
    public StreamSink(OutputStream out, boolean closeOut, AuditFormat format) {
        this(out, closeOut, format, CAPACITY);
    }

    StreamSink(OutputStream out, boolean closeOut, AuditFormat format, int capacity) {
        this.format = format;
        this.queue = PlatformDependent.newFixedMpscQueue(capacity);
        this.out = new BufferedOutputStream(out, 64 * 1024);
        this.closeOut = closeOut;
        this.writer = new Thread(this::run, "mesa-egress-audit");
        writer.setDaemon(true);
        writer.start();
    }

    /** Opens {@code audit.sink}, {@code stdout} or a file appended to, for {@code format}'s lines. */
    public static StreamSink open(MesaConfig.Audit.Sink sink, AuditFormat format) throws IOException {
        if (sink instanceof MesaConfig.Audit.AppendTo file) {
            return new StreamSink(new FileOutputStream(file.file().toFile(), true), true, format);
        }
        return new StreamSink(new FileOutputStream(FileDescriptor.out), false, format);
    }

    /** Queues one record; waits while the queue is full. */
    @Override
    public void record(AuditRecord record) {
        while (!queue.offer(record)) {
            // Full: the sink is slower than the traffic. Wake the writer and wait for room.
            LockSupport.unpark(writer);
            if (stopping || !writer.isAlive()) {
                LOG.warning("audit record dropped: the audit log is closed");
                return;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }
        if (idle.get() && idle.compareAndSet(true, false)) {
            LockSupport.unpark(writer);
        }
    }

    private void run() {
        try {
            while (true) {
                boolean wrote = writeQueued();
                if (stopping) {
                    writeQueued(); // what came in while the last batch was written
                    return;
                }
                if (wrote) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(BATCH_MILLIS));
                    continue;
                }
                idle.set(true);
                if (queue.isEmpty() && !stopping) { // a record offered before idle was set would wait here otherwise
                    LockSupport.park(this);
                }
                idle.set(false);
            }
        } catch (IOException e) {
            LOG.log(Level.SEVERE, "audit sink failed: " + e.getMessage());
        }
    }

    /** Writes every queued record and flushes; whether there was any. */
    private boolean writeQueued() throws IOException {
        AuditRecord record = queue.poll();
        if (record == null) {
            return false;
        }
        do {
            format.writeLine(record, out);
        } while ((record = queue.poll()) != null);
        out.flush();
        return true;
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        stopping = true;
        LockSupport.unpark(writer);
        try {
            writer.join(TimeUnit.SECONDS.toMillis(10));
            if (closeOut) {
                out.close();
            } else {
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing the audit sink failed: " + e.getMessage());
        }
    }
}
