package org.cyverse.mesa.egress.injector.sigv4;

/**
 * The identities of an {@code aws_sigv4} credential besides its real secret access key (which is
 * the credential's {@code secret}, fetched and refreshed like any other).
 *
 * @param sentinelAccessKeyId the access key id the agent holds ({@code AWS_ACCESS_KEY_ID}): a
 *     request signed with it is re-signed with the real key
 * @param sentinelSecretAccessKey the secret key the agent holds ({@code AWS_SECRET_ACCESS_KEY}):
 *     the proxy checks the client's signature with it before it signs with the real key, so it
 *     never signs what the client did not
 * @param accessKeyId the real access key id (an identifier, not a secret: AWS prints it in logs)
 */
public record SigV4Keys(String sentinelAccessKeyId, String sentinelSecretAccessKey, String accessKeyId) {

    @Override
    public String toString() {
        return "SigV4Keys[sentinel " + sentinelAccessKeyId + ", real " + accessKeyId + "]";
    }
}
