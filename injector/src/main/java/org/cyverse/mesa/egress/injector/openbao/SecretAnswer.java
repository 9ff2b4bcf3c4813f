package org.cyverse.mesa.egress.injector.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * What a read of {@code openbao:PATH#FIELD} returned, in OpenBao's response envelope
 * ({@code lease_id}, {@code lease_duration}, {@code renewable}, {@code data}):
 * <ul>
 * <li>KV v2 ({@code mount/data/path}): {@code data.data} holds the fields and
 * {@code data.metadata.version} the version (API docs, "Read secret version");</li>
 * <li>a leased secret from any engine: a non-empty {@code lease_id} (API docs, "Lease, renew, and revoke");</li>
 * <li>anything else (KV v1): {@code data} holds the fields.</li>
 * </ul>
 * Problems name the path and the field, never a value.
 *
 * @param value the field's value
 * @param version the KV v2 version, or {@code null}
 * @param leaseId the lease, or {@code null} when the secret has none (KV)
 * @param leaseSeconds the lease's duration
 * @param renewable whether the lease may be renewed
 * @param parts the other fields asked for, read from the same answer, by the caller's names for them
 */
record SecretAnswer(Secret value, String version, String leaseId, long leaseSeconds, boolean renewable, Map<String, Secret> parts) {

    SecretAnswer {
        parts = Map.copyOf(parts);
    }

    boolean leased() {
        return leaseId != null;
    }

    @Override
    public String toString() {
        return "SecretAnswer[value=redacted, version=" + version + ", leased=" + leased() + "]";
    }

    static SecretAnswer parse(JsonNode body, SecretRef ref) throws SecretUnavailableException {
        return parse(body, ref, Map.of());
    }

    /** @param partFields further fields of the same secret to read, by the caller's name for each */
    static SecretAnswer parse(JsonNode body, SecretRef ref, Map<String, String> partFields) throws SecretUnavailableException {
        String path = ref.location();
        JsonNode data = body.path("data");
        JsonNode fields = data;
        String version = null;
        if (data.has("metadata") && data.has("data")) {
            fields = data.get("data");
            JsonNode v = data.get("metadata").path("version");
            version = v.isMissingNode() || v.isNull() ? null : v.asText();
            if (fields.isNull()) {
                throw new SecretUnavailableException("the KV v2 secret at " + path + " has no data (its latest version was deleted or destroyed)");
            }
        }
        if (!fields.isObject()) {
            throw new SecretUnavailableException("OpenBao's answer for " + path + " holds no data fields");
        }
        Secret value = field(fields, ref.key(), path);
        Map<String, Secret> parts = new LinkedHashMap<>();
        for (Map.Entry<String, String> p : partFields.entrySet()) {
            parts.put(p.getKey(), field(fields, p.getValue(), path));
        }
        String leaseId = body.path("lease_id").asText("");
        return new SecretAnswer(value, version, leaseId.isEmpty() ? null : leaseId,
                body.path("lease_duration").asLong(0), body.path("renewable").asBoolean(false), parts);
    }

    private static Secret field(JsonNode fields, String key, String path) throws SecretUnavailableException {
        JsonNode field = fields.get(key);
        if (field == null || field.isNull()) {
            throw new SecretUnavailableException("field \"" + key + "\" is not in the secret at " + path
                    + " (its fields: " + names(fields) + ")" + (field != null ? "; it is null there" : ""));
        }
        if (field.isContainerNode()) {
            throw new SecretUnavailableException("field \"" + key + "\" of the secret at " + path
                    + " is a JSON " + (field.isArray() ? "list" : "map") + ", not a string");
        }
        String text = field.asText();
        if (text.isEmpty()) {
            throw new SecretUnavailableException("field \"" + key + "\" of the secret at " + path + " is empty");
        }
        return Secret.of(text);
    }

    private static String names(JsonNode fields) {
        List<String> names = new ArrayList<>();
        fields.fieldNames().forEachRemaining(names::add);
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}
