package org.cyverse.mesa.egress.audit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import java.io.IOException;
import java.io.OutputStream;

/**
 * SPEC.md's audit line: one JSON object per record ({@link AuditRecord#writeTo}), ended by a
 * newline. Thread-safe.
 */
public final class JsonLinesFormat implements AuditFormat {

    private final JsonFactory json = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .disable(StreamWriteFeature.FLUSH_PASSED_TO_STREAM)
            .build();

    @Override
    public void writeLine(AuditRecord record, OutputStream out) throws IOException {
        try (JsonGenerator g = json.createGenerator(out)) {
            record.writeTo(g);
            g.writeRaw('\n');
        }
    }
}
