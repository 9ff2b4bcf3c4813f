package org.cyverse.mesa.egress.proxy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One line of the audit log (SPEC.md "Audit log"): one per request, one per CONNECT for opaque
 * tunnels. Never a secret, never a query string: {@code path} is the path alone. {@code place} is
 * where a {@code secret_leak} or {@code credential_endpoint_mismatch} was found ({@code header},
 * {@code query}, {@code path}, {@code body}, {@code host}, {@code method}) or a {@code dlp} rule matched,
 * {@code null} otherwise; {@code dlp} is that rule's name (refused in block mode, recorded in audit mode).
 */
@JsonPropertyOrder({"ts", "profile", "client", "mode", "method", "scheme", "host", "port", "path", "decision",
        "reason", "rule", "credential", "place", "dlp", "status", "bytes_up", "bytes_down", "duration_ms"})
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
        @JsonProperty("duration_ms") long durationMs) {}
