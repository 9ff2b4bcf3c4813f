package org.cyverse.mesa.egress.injector.sigv4;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * The identities of an {@code aws_sigv4} credential besides its real secret access key (which is
 * the credential's {@code secret}, fetched and refreshed like any other).
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
        SecretRef sessionToken) {

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

    /** What is fetched with the secret access key, by part name: the key id's and the session token's references. */
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
    public String toString() {
        return "SigV4Keys[sentinel " + sentinelAccessKeyId + ", real " + describeKeyId() + (sessionToken != null ? ", session token at "
                + sessionToken : "") + "]";
    }
}
