package org.cyverse.mesa.egress.injector;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/**
 * A field a credential kind adds to a request's audit record (an extension of SPEC.md's fields,
 * e.g. {@code github}). Immutable: the audit writer's thread writes it after the request ended.
 * Never a secret.
 */
public interface AuditPart {

    /** The record's field name, e.g. {@code github}. */
    String field();

    /** Writes the field's value (the name is written already). */
    void writeValue(JsonGenerator g) throws IOException;
}
