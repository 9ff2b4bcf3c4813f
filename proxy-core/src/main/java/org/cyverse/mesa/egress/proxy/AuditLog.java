package org.cyverse.mesa.egress.proxy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
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
 * Writes {@link AuditRecord}s as JSON lines to the audit sink on a thread of its own, so that a
 * slow sink (a full stdout pipe) does not stall an event loop.
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
public final class AuditLog implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AuditLog.class.getName());
    static final int CAPACITY = 65_536;
    static final long BATCH_MILLIS = 10;

    private final JsonFactory json = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .disable(StreamWriteFeature.FLUSH_PASSED_TO_STREAM)
            .build();
    private final Queue<AuditRecord> queue;
    /** True while the writer sleeps with nothing to do: the next record must wake it. */
    private final AtomicBoolean idle = new AtomicBoolean();
    private final OutputStream out;
    private final boolean closeOut;
    private final Thread writer;
    private volatile boolean stopping;

    /** An audit log writing to {@code out}; {@code closeOut} closes it on {@link #close()}. */
    public AuditLog(OutputStream out, boolean closeOut) {
        this(out, closeOut, CAPACITY);
    }

    AuditLog(OutputStream out, boolean closeOut, int capacity) {
        this.queue = PlatformDependent.newFixedMpscQueue(capacity);
        this.out = new BufferedOutputStream(out, 64 * 1024);
        this.closeOut = closeOut;
        this.writer = new Thread(this::run, "mesa-egress-audit");
        writer.setDaemon(true);
        writer.start();
    }

    /** Opens {@code audit.sink}: {@code stdout} or a file appended to. */
    public static AuditLog open(MesaConfig.Audit.Sink sink) throws IOException {
        if (sink instanceof MesaConfig.Audit.AppendTo file) {
            return new AuditLog(new FileOutputStream(file.file().toFile(), true), true);
        }
        return new AuditLog(new FileOutputStream(FileDescriptor.out), false);
    }

    /** Queues one record; waits while the queue is full. */
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
        try (JsonGenerator g = json.createGenerator(out)) {
            g.setRootValueSeparator(null); // each record ends its own line
            do {
                record.writeTo(g);
                g.writeRaw('\n');
            } while ((record = queue.poll()) != null);
        }
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
