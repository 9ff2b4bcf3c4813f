package org.cyverse.mesa.egress.audit;

import java.io.IOException;
import java.io.OutputStream;

/**
 * How one {@link AuditRecord} becomes one line of the audit log: JSON lines today
 * ({@link JsonLinesFormat}); another layout of the same facts (OCSF) is another format. A
 * {@link StreamSink} calls it from its one writer thread, in the order the lines reach the sink,
 * so a format that wraps another may keep state from line to line and see each line's exact bytes
 * (a hash chain: a sequence number, the previous line's hash).
 */
public interface AuditFormat {

    /** Writes {@code record} to {@code out} as one line, its newline included; does not flush. */
    void writeLine(AuditRecord record, OutputStream out) throws IOException;
}
