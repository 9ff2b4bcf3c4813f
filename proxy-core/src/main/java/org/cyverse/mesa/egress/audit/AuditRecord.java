package org.cyverse.mesa.egress.audit;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import org.cyverse.mesa.egress.injector.AuditPart;

/**
 * One line of the audit log (SPEC.md "Audit log"): one per request, one per CONNECT for opaque
 * tunnels. Never a secret, never a query string: {@code path} is the path alone. {@code place} is
 * where a {@code secret_leak} or {@code credential_endpoint_mismatch} was found ({@code header},
 * {@code query}, {@code path}, {@code body}, {@code host}, {@code method}) or a {@code dlp} rule matched,
 * {@code null} otherwise; {@code dlp} is that rule's name (refused in block mode, recorded in audit mode).
 * The credential kinds' parts follow (extensions: {@code github} on requests of a {@code github_app}
 * credential, {@link org.cyverse.mesa.egress.injector.github.GitHubUse.Audit}). {@code websocket} (only on a WebSocket's record,
 * written when the connection ends): its messages each way and how it closed. {@code protocol}
 * (an extension): {@code h2} for a request that came on an HTTP/2 stream, absent for HTTP/1.x.
 * Built by name with {@link #builder()}.
 *
 * <p>{@link #writeTo} writes the line with Jackson's streaming generator, field by field. Through
 * {@code ObjectMapper} the first record of a process built its serializer by reflection (the
 * record's components, their annotations, a proxy class per annotation): 24 ms of CPU on a
 * one-CPU pod, beside the agent's first request.
 */
public record AuditRecord(
        String ts,
        String profile,
        String client,
        String mode,
        String method,
        String scheme,
        String host,
        Integer port,
        String path,
        String decision,
        String reason,
        String rule,
        String credential,
        String place,
        String dlp,
        int status,
        long bytesUp,
        long bytesDown,
        long durationMs,
        List<AuditPart> parts,
        WebSocket websocket,
        String protocol) {

    public AuditRecord {
        parts = parts == null ? List.of() : List.copyOf(parts);
    }

    /** A record to fill in field by field; a field not set is {@code null} (or 0). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Writes this record as one JSON object, the fields in SPEC.md's order: every field of the
     * contract, {@code null} where it has no value; the kinds' parts, {@code websocket} and
     * {@code protocol} only when they have one.
     */
    public void writeTo(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeStringField("ts", ts);
        g.writeStringField("profile", profile);
        g.writeStringField("client", client);
        g.writeStringField("mode", mode);
        g.writeStringField("method", method);
        g.writeStringField("scheme", scheme);
        g.writeStringField("host", host);
        g.writeFieldName("port");
        if (port == null) {
            g.writeNull();
        } else {
            g.writeNumber(port);
        }
        g.writeStringField("path", path);
        g.writeStringField("decision", decision);
        g.writeStringField("reason", reason);
        g.writeStringField("rule", rule);
        g.writeStringField("credential", credential);
        g.writeStringField("place", place);
        g.writeStringField("dlp", dlp);
        g.writeNumberField("status", status);
        g.writeNumberField("bytes_up", bytesUp);
        g.writeNumberField("bytes_down", bytesDown);
        g.writeNumberField("duration_ms", durationMs);
        for (AuditPart part : parts) {
            g.writeFieldName(part.field());
            part.writeValue(g);
        }
        if (websocket != null) {
            g.writeFieldName("websocket");
            websocket.writeTo(g);
        }
        if (protocol != null) {
            g.writeStringField("protocol", protocol);
        }
        g.writeEndObject();
    }

    /**
     * How a WebSocket connection went: {@code messages_up} (from the agent) and {@code messages_down}
     * relayed whole, {@code close_code} (the first close frame's, 1005 when it had none, 1006 when a
     * connection closed without one, or the code the proxy closed with) and {@code closed_by}
     * ({@code client}, {@code upstream} or {@code proxy}). {@code bytes_up} and {@code bytes_down}
     * count message payloads. Never a message or a close reason: either can quote a secret.
     */
    public record WebSocket(long messagesUp, long messagesDown, int closeCode, String closedBy) {
        void writeTo(JsonGenerator g) throws IOException {
            g.writeStartObject();
            g.writeNumberField("messages_up", messagesUp);
            g.writeNumberField("messages_down", messagesDown);
            g.writeNumberField("close_code", closeCode);
            g.writeStringField("closed_by", closedBy);
            g.writeEndObject();
        }
    }

    /** Fills in a record by the fields' names; each setter replaces what was set before. Not thread-safe. */
    public static final class Builder {
        private String ts;
        private String profile;
        private String client;
        private String mode;
        private String method;
        private String scheme;
        private String host;
        private Integer port;
        private String path;
        private String decision;
        private String reason;
        private String rule;
        private String credential;
        private String place;
        private String dlp;
        private int status;
        private long bytesUp;
        private long bytesDown;
        private long durationMs;
        private List<AuditPart> parts = List.of();
        private WebSocket websocket;
        private String protocol;

        private Builder() {
        }

        public Builder ts(String ts) {
            this.ts = ts;
            return this;
        }

        public Builder profile(String profile) {
            this.profile = profile;
            return this;
        }

        public Builder client(String client) {
            this.client = client;
            return this;
        }

        public Builder mode(String mode) {
            this.mode = mode;
            return this;
        }

        public Builder method(String method) {
            this.method = method;
            return this;
        }

        public Builder scheme(String scheme) {
            this.scheme = scheme;
            return this;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(Integer port) {
            this.port = port;
            return this;
        }

        public Builder path(String path) {
            this.path = path;
            return this;
        }

        public Builder decision(String decision) {
            this.decision = decision;
            return this;
        }

        public Builder reason(String reason) {
            this.reason = reason;
            return this;
        }

        public Builder rule(String rule) {
            this.rule = rule;
            return this;
        }

        public Builder credential(String credential) {
            this.credential = credential;
            return this;
        }

        public Builder place(String place) {
            this.place = place;
            return this;
        }

        public Builder dlp(String dlp) {
            this.dlp = dlp;
            return this;
        }

        public Builder status(int status) {
            this.status = status;
            return this;
        }

        public Builder bytesUp(long bytesUp) {
            this.bytesUp = bytesUp;
            return this;
        }

        public Builder bytesDown(long bytesDown) {
            this.bytesDown = bytesDown;
            return this;
        }

        public Builder durationMs(long durationMs) {
            this.durationMs = durationMs;
            return this;
        }

        /** What the credential kinds add (the {@code github} part), in order. */
        public Builder parts(List<AuditPart> parts) {
            this.parts = parts;
            return this;
        }

        public Builder websocket(WebSocket websocket) {
            this.websocket = websocket;
            return this;
        }

        public Builder protocol(String protocol) {
            this.protocol = protocol;
            return this;
        }

        /** The record as filled in so far. */
        public AuditRecord build() {
            return new AuditRecord(ts, profile, client, mode, method, scheme, host, port, path, decision, reason, rule, credential,
                    place, dlp, status, bytesUp, bytesDown, durationMs, parts, websocket, protocol);
        }
    }
}
