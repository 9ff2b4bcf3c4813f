package org.cyverse.mesa.egress.injector.sigv4;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.KindSpec;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretValues;

/**
 * The {@code aws_sigv4:} block of a credential ({@link SigV4Kind}): the identities of the
 * credential besides its real secret access key (which is the credential's {@code secret}, fetched
 * and refreshed like any other).
 *
 * @param sentinelAccessKeyId the access key id the agent holds ({@code AWS_ACCESS_KEY_ID}): a
 *     request signed with it is re-signed with the real key
 * @param sentinelSecretAccessKey the secret key the agent holds ({@code AWS_SECRET_ACCESS_KEY}):
 *     the proxy checks the client's signature with it before it signs with the real key, so it
 *     never signs what the client did not
 * @param accessKeyId the real access key id when the config writes it (an identifier, not a secret:
 *     AWS prints it in logs), or {@code null} when it is fetched ({@code accessKeyIdRef})
 * @param accessKeyIdRef where the real access key id is read, together with the secret access key
 *     (temporary credentials), or {@code null} when {@code accessKeyId} is written
 * @param sessionToken where the session token is read, together with the secret access key, or
 *     {@code null} for a long-lived key
 */
public record SigV4Keys(String sentinelAccessKeyId, String sentinelSecretAccessKey, String accessKeyId, SecretRef accessKeyIdRef,
        SecretRef sessionToken) implements KindSpec {

    /** The part of the credential's lease that holds a fetched access key id. */
    public static final String ACCESS_KEY_ID = "access_key_id";
    /** The part of the credential's lease that holds the session token. */
    public static final String SESSION_TOKEN = "session_token";
    /** AWS: an access key id is 16 to 128 letters and digits ({@code AKIA...}, {@code ASIA...}). */
    public static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9]{16,128}");

    /** A long-lived key: the key id written in the config, no session token. */
    public SigV4Keys(String sentinelAccessKeyId, String sentinelSecretAccessKey, String accessKeyId) {
        this(sentinelAccessKeyId, sentinelSecretAccessKey, accessKeyId, null, null);
    }

    public SigV4Keys {
        if ((accessKeyId == null) == (accessKeyIdRef == null)) {
            throw new IllegalArgumentException("an aws_sigv4 credential needs exactly one of a written and a fetched access key id");
        }
    }

    @Override
    public CredentialKind kind() {
        return SigV4Kind.INSTANCE;
    }

    /** Re-signed by {@link SigV4Step}: the injector neither replaces a sentinel nor sets a header. */
    @Override
    public boolean ownStep() {
        return true;
    }

    /** What is fetched with the secret access key, by part name: the key id's and the session token's references. */
    @Override
    public Map<String, SecretRef> parts() {
        Map<String, SecretRef> parts = new LinkedHashMap<>();
        if (accessKeyIdRef != null) {
            parts.put(ACCESS_KEY_ID, accessKeyIdRef);
        }
        if (sessionToken != null) {
            parts.put(SESSION_TOKEN, sessionToken);
        }
        return parts;
    }

    /** For {@code check} and logs: the real key id, or where it is read. */
    public String describeKeyId() {
        return accessKeyId != null ? accessKeyId : "the key id at " + accessKeyIdRef;
    }

    @Override
    public String describe(CredentialSpec credential) {
        return "aws_sigv4: requests signed with sentinel key id " + sentinelAccessKeyId + " re-signed as " + describeKeyId()
                + " (secret access key: " + credential.secret() + (sessionToken != null ? "; session token: " + sessionToken : "") + ")";
    }

    /** An echoed secret access key becomes the sentinel secret key the agent signs with. */
    @Override
    public String standIn(CredentialSpec credential) {
        return sentinelSecretAccessKey;
    }

    /** An S3 error echoes the key id it checked: the agent gets its own (the sentinel key id) back. */
    @Override
    public Map<String, String> echoes(CredentialSpec credential, SecretValues store) {
        List<String> keyIds = new ArrayList<>();
        if (accessKeyId != null) {
            keyIds.add(accessKeyId);
        }
        store.heldPart(credential.name(), ACCESS_KEY_ID).forEach(k -> keyIds.add(k.reveal()));
        Map<String, String> echoes = new LinkedHashMap<>();
        keyIds.forEach(keyId -> echoes.putIfAbsent(keyId, sentinelAccessKeyId));
        return echoes;
    }

    /** A URL carries no signature: what the proxy does with the requests an S3 client signs. */
    @Override
    public List<String> checkActions(CredentialSpec credential) {
        return List.of("re-signs requests signed with sentinel key id " + sentinelAccessKeyId + " (AWS SigV4)");
    }

    @Override
    public String toString() {
        return "SigV4Keys[sentinel " + sentinelAccessKeyId + ", real " + describeKeyId() + (sessionToken != null ? ", session token at "
                + sessionToken : "") + "]";
    }
}
