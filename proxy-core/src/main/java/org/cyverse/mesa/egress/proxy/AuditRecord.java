package org.cyverse.mesa.egress.proxy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One line of the audit log (SPEC.md "Audit log"): one per request, one per CONNECT for opaque
 * tunnels. Never a secret, never a query string: {@code path} is the path alone. {@code place} is
 * where a {@code secret_leak} or {@code credential_endpoint_mismatch} was found ({@code header},
 * {@code query}, {@code path}, {@code body}, {@code host}, {@code method}) or a {@code dlp} rule matched,
 * {@code null} otherwise; {@code dlp} is that rule's name (refused in block mode, recorded in audit mode).
 * {@code github} (an extension, only on requests of a {@code github_app} credential): the repository,
 * the operation, and for a push the refs it named. {@code websocket} (only on a WebSocket's record,
 * written when the connection ends): its messages each way and how it closed. {@code protocol}
 * (an extension): {@code h2} for a request that came on an HTTP/2 stream, absent for HTTP/1.x.
 */
@JsonPropertyOrder({"ts", "profile", "client", "mode", "method", "scheme", "host", "port", "path", "decision",
        "reason", "rule", "credential", "place", "dlp", "status", "bytes_up", "bytes_down", "duration_ms", "github", "websocket", "protocol"})
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
        @JsonProperty("bytes_up") long bytesUp,
        @JsonProperty("bytes_down") long bytesDown,
        @JsonProperty("duration_ms") long durationMs,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) GitHub github,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) WebSocket websocket,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String protocol) {

    /** A record without the {@code websocket} part. */
    public AuditRecord(String ts, String profile, String client, String mode, String method, String scheme, String host, Integer port,
            String path, String decision, String reason, String rule, String credential, String place, String dlp, int status,
            long bytesUp, long bytesDown, long durationMs, GitHub github) {
        this(ts, profile, client, mode, method, scheme, host, port, path, decision, reason, rule, credential, place, dlp, status, bytesUp,
                bytesDown, durationMs, github, null, null);
    }

    /** A record without the {@code github} part. */
    public AuditRecord(String ts, String profile, String client, String mode, String method, String scheme, String host, Integer port,
            String path, String decision, String reason, String rule, String credential, String place, String dlp, int status,
            long bytesUp, long bytesDown, long durationMs) {
        this(ts, profile, client, mode, method, scheme, host, port, path, decision, reason, rule, credential, place, dlp, status, bytesUp,
                bytesDown, durationMs, null, null, null);
    }

    /**
     * What a GitHub request was: {@code repository} ({@code owner/name} as the request named it, or
     * absent for a repository-free call), {@code operation} ({@code rest}, {@code graphql},
     * {@code git-upload-pack}, {@code git-receive-pack}) and {@code refs}, the refs a push named.
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record GitHub(String repository, String operation, java.util.List<String> refs) {
        static GitHub of(org.cyverse.mesa.egress.injector.github.GitHubUse use, java.util.List<String> refs) {
            return use == null ? null : new GitHub(use.repository(), use.operation(), refs);
        }
    }

    /**
     * How a WebSocket connection went: {@code messages_up} (from the agent) and {@code messages_down}
     * relayed whole, {@code close_code} (the first close frame's, 1005 when it had none, 1006 when a
     * connection closed without one, or the code the proxy closed with) and {@code closed_by}
     * ({@code client}, {@code upstream} or {@code proxy}). {@code bytes_up} and {@code bytes_down}
     * count message payloads. Never a message or a close reason: either can quote a secret.
     */
    public record WebSocket(@JsonProperty("messages_up") long messagesUp, @JsonProperty("messages_down") long messagesDown,
            @JsonProperty("close_code") int closeCode, @JsonProperty("closed_by") String closedBy) {}
}
