package org.cyverse.mesa.egress.approval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Approvals as JSON: what {@code GET /approvals} lists, the state file holds and the webhook
 * sends, and the scope an approve call gives. Field names in snake case, times in RFC 3339 UTC.
 */
public final class ApprovalJson {

    static final ObjectMapper JSON = new ObjectMapper();

    private ApprovalJson() {}

    /** One approval, every field. */
    public static ObjectNode of(Approval a) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", a.id());
        n.put("state", a.state().label());
        n.set("asked", scope(a.asked()));
        n.put("count", a.count());
        n.put("first_seen", a.firstSeen().toString());
        n.put("last_seen", a.lastSeen().toString());
        n.put("expires", a.expires().toString());
        n.put("decided_at", a.decidedAt() == null ? null : a.decidedAt().toString());
        n.put("decided_by", a.decidedBy());
        n.set("granted", a.granted() == null ? null : scope(a.granted()));
        n.put("grant_expires", a.grantExpires() == null ? null : a.grantExpires().toString());
        return n;
    }

    /** {@code {"host": ..., "ports": [...], "methods": [...]}}. */
    public static ObjectNode scope(ApprovalScope s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("host", s.host());
        ArrayNode ports = n.putArray("ports");
        s.ports().stream().sorted().forEach(ports::add);
        ArrayNode methods = n.putArray("methods");
        s.methods().stream().sorted().forEach(methods::add);
        return n;
    }

    /**
     * Reads what {@link #of} wrote, and only that: an id of the proxy's form, canonical exact
     * hosts (never a pattern), a grant within what was asked and no longer than an approval may
     * give, and states whose fields agree. A state file is not trusted further than the proxy
     * itself would have written it.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static Approval read(JsonNode n) {
        String id = text(n, "id");
        if (!id.matches("apr_[0-9a-f]{1,64}")) {
            throw new IllegalArgumentException("id " + id + " is not an approval id");
        }
        Approval.State state = Approval.State.valueOf(text(n, "state").toUpperCase(Locale.ROOT));
        ApprovalScope asked = canonical(readScope(n.get("asked"), "asked"), id);
        ApprovalScope granted = n.hasNonNull("granted") ? canonical(readScope(n.get("granted"), "granted"), id) : null;
        Approval a = new Approval(id, asked, state, n.path("count").asInt(1), instant(n, "first_seen"),
                instant(n, "last_seen"), instant(n, "expires"), optionalInstant(n, "decided_at"),
                n.hasNonNull("decided_by") ? n.get("decided_by").asText() : null, granted, optionalInstant(n, "grant_expires"));
        boolean grant = state == Approval.State.APPROVED || state == Approval.State.GRANT_EXPIRED;
        if (grant != (granted != null) || (state == Approval.State.DENIED || grant) && a.decidedAt() == null || a.count() < 1
                || asked.ports().size() != 1) {
            throw new IllegalArgumentException("approval " + id + " is inconsistent (state " + state.label() + ")");
        }
        if (granted != null && (granted.widening(asked) != null || a.grantExpires() != null
                && a.grantExpires().isAfter(a.decidedAt().plus(ApprovalTtl.MAX)))) {
            throw new IllegalArgumentException("approval " + id + " grants more than an approval may");
        }
        return a;
    }

    /** {@code scope} if its host is a canonical host name or address, as a request's would be. */
    private static ApprovalScope canonical(ApprovalScope scope, String id) {
        try {
            String host = org.cyverse.mesa.egress.allowlist.Destination.parse(scope.host(), scope.ports().iterator().next()).host();
            if (host.equals(scope.host()) && !host.contains("*") && !host.contains("/")) {
                return scope;
            }
        } catch (org.cyverse.mesa.egress.allowlist.InvalidDestinationException e) {
            // refused below
        }
        throw new IllegalArgumentException("approval " + id + " names " + scope.host() + ", not a canonical host");
    }

    /**
     * A scope given by an approve call ({@code scope}: {@code host}, {@code ports}, {@code methods}).
     *
     * @throws IllegalArgumentException naming the field that is wrong
     */
    public static ApprovalScope readScope(JsonNode n, String field) {
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException(field + " must be an object with host and ports");
        }
        for (var names = n.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!Set.of("host", "ports", "methods").contains(name)) {
                throw new IllegalArgumentException(field + "." + name + " is unknown (host, ports, methods)");
            }
        }
        if (!n.path("host").isTextual() || n.get("host").asText().isBlank()) {
            throw new IllegalArgumentException(field + ".host must be a host name");
        }
        Set<Integer> ports = new LinkedHashSet<>();
        JsonNode p = n.get("ports");
        if (p == null || !p.isArray() || p.isEmpty()) {
            throw new IllegalArgumentException(field + ".ports must be a non-empty list of ports");
        }
        for (JsonNode port : p) {
            if (!port.isInt() || port.asInt() < 1 || port.asInt() > 65535) {
                throw new IllegalArgumentException(field + ".ports holds " + port + ", not a port (1-65535)");
            }
            ports.add(port.asInt());
        }
        Set<String> methods = new LinkedHashSet<>();
        JsonNode m = n.get("methods");
        if (m != null && !m.isNull()) {
            if (!m.isArray()) {
                throw new IllegalArgumentException(field + ".methods must be a list of methods");
            }
            for (JsonNode method : m) {
                if (!method.isTextual() || !method.asText().matches("[A-Z]{1,20}")) {
                    throw new IllegalArgumentException(field + ".methods holds " + method + ", not an uppercase method such as GET");
                }
                methods.add(method.asText());
            }
        }
        return new ApprovalScope(n.get("host").asText(), ports, methods);
    }

    private static String text(JsonNode n, String field) {
        if (!n.path(field).isTextual()) {
            throw new IllegalArgumentException(field + " is missing");
        }
        return n.get(field).asText();
    }

    private static Instant instant(JsonNode n, String field) {
        return Instant.parse(text(n, field));
    }

    private static Instant optionalInstant(JsonNode n, String field) {
        return n.hasNonNull(field) ? instant(n, field) : null;
    }
}
