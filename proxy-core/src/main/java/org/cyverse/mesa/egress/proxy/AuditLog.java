package org.cyverse.mesa.egress.proxy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes {@link AuditRecord}s as JSON lines to the audit sink on a thread of its own, so that a
 * slow sink (a full stdout pipe) does not stall an event loop. The queue is large and bounded;
 * when it is full the caller waits rather than dropping a record: an audit log with holes is
 * worse than a slower proxy.
 */
public final class AuditLog implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AuditLog.class.getName());
    private static final Object STOP = new Object();

    private final ObjectMapper json = new ObjectMapper()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>(65_536);
    private final OutputStream out;
    private final boolean closeOut;
    private final Thread writer;

    /** An audit log writing to {@code out}; {@code closeOut} closes it on {@link #close()}. */
    public AuditLog(OutputStream out, boolean closeOut) {
        this.out = out;
        this.closeOut = closeOut;
        this.writer = new Thread(this::drain, "mesa-egress-audit");
        writer.setDaemon(true);
        writer.start();
    }

    /** Opens {@code audit.sink}: {@code stdout} or a file appended to. */
    public static AuditLog open(String sink) throws IOException {
        if (sink == null || sink.equals("stdout")) {
            return new AuditLog(new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), false), false);
        }
        return new AuditLog(new FileOutputStream(sink, true), true);
    }

    /** Queues one record. */
    public void record(AuditRecord record) {
        try {
            queue.put(record);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void drain() {
        try {
            while (true) {
                Object item = queue.take();
                if (item == STOP) {
                    break;
                }
                write((AuditRecord) item);
                Object next;
                while ((next = queue.poll()) != null) {
                    if (next == STOP) {
                        out.flush();
                        return;
                    }
                    write((AuditRecord) next);
                }
                out.flush();
            }
            out.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.log(Level.SEVERE, "audit sink failed: " + e.getMessage());
        }
    }

    private void write(AuditRecord record) throws IOException {
        json.writeValue(out, record);
        out.write('\n');
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        try {
            queue.put(STOP);
            writer.join(TimeUnit.SECONDS.toMillis(10));
            if (closeOut) {
                out.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing the audit sink failed: " + e.getMessage());
        }
    }
}
