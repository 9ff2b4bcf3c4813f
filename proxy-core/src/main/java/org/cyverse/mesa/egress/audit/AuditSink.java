package org.cyverse.mesa.egress.audit;

/**
 * Where the proxy's audit records go. The proxy hands each record over once, as the exchange it
 * describes ends, and names no sink: one is chosen at start ({@code audit.sink}).
 *
 * <p>A way of recording is a sink or a sink decorator: JSON lines to a stream today
 * ({@link StreamSink} with {@link JsonLinesFormat}); OCSF is another {@link AuditFormat} of that
 * sink, a hash chain a format wrapping another (it must see each line's exact bytes, in order),
 * OTLP export a sink of its own, beside the stream one.
 */
public interface AuditSink extends AutoCloseable {

    /**
     * Takes one record. Thread-safe, and called on event loops: it must not block for long, yet
     * never drops a record it could keep (an audit log with holes is worse than a slower proxy),
     * so a sink that has fallen far behind may make the caller wait.
     */
    void record(AuditRecord record);

    /** Writes out or sends what it was given, then releases what it holds; a record given after this is dropped. */
    @Override
    void close();
}
