package org.cyverse.mesa.egress.config;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.sigv4.SigV4Keys;

/** Reads a credential's {@code aws_sigv4} block (SPEC.md "Additions": {@code aws_sigv4: {sentinel_access_key_id: ..., ...}}). */
final class SigV4Reader {

    static final List<String> KEYS = List.of("sentinel_access_key_id", "sentinel_secret_access_key", "access_key_id", "secret_access_key",
            "session_token");
    /** The keys of a credential that an aws_sigv4 credential has no use for: its block says all of it. */
    static final List<String> EXCLUSIVE = List.of("secret", "sentinel", "header", "format", "mint", "body_substitution");

    /** AWS: an access key id is 16 to 128 word characters ({@code AKIA...}, {@code ASIA...}). */
    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9]{16,128}");

    /** What the block gave: the keys, and the real secret key's reference (the credential's secret). */
    record Read(SigV4Keys keys, SecretRef secretAccessKey) {}

    private SigV4Reader() {}

    /** @return what was read, or {@code null} when a problem was reported */
    static Read read(MapReader credential, boolean broker, Map<String, String> sentinels, String key) {
        for (String other : EXCLUSIVE) {
            if (credential.present(other)) {
                credential.problem(other, "an aws_sigv4 credential takes its keys from the aws_sigv4 block; remove " + other);
            }
        }
        MapReader b = credential.map("aws_sigv4", KEYS);
        if (b == null) {
            return null;
        }
        int before = b.problems().size();
        String sentinelId = keyId(b, "sentinel_access_key_id", "the agent's AWS_ACCESS_KEY_ID");
        String sentinelSecret = b.requiredString("sentinel_secret_access_key");
        if (sentinelSecret != null && (sentinelSecret.length() < 16 || CredentialReader.hasControl(sentinelSecret))) {
            b.problem("sentinel_secret_access_key", "must be the agent's AWS_SECRET_ACCESS_KEY: 16 characters or more, without control"
                    + " characters");
        }
        String realId = keyId(b, "access_key_id", "the real access key id");
        if (realId != null && realId.equals(sentinelId)) {
            b.problem("access_key_id", "is the sentinel_access_key_id: the agent must not hold the real key id's pair");
        }
        String secretText = b.requiredString("secret_access_key");
        SecretRef secret = secretText == null ? null : CredentialReader.secretRef(b, "secret_access_key", secretText, broker);
        if (b.present("session_token")) {
            b.problem("session_token", "is not supported yet: give a long-lived access key (temporary credentials, from STS or OpenBao's"
                    + " AWS engine, are a later addition)");
        }
        if (sentinelId != null) {
            String other = sentinels.putIfAbsent(sentinelId, key);
            if (other != null) {
                b.problem("sentinel_access_key_id", "\"" + sentinelId + "\" is already the sentinel of " + other);
            }
        }
        if (b.problems().size() != before) {
            return null;
        }
        return new Read(new SigV4Keys(sentinelId, sentinelSecret, realId), secret);
    }

    private static String keyId(MapReader b, String k, String what) {
        String id = b.requiredString(k);
        if (id != null && !KEY_ID.matcher(id).matches()) {
            b.problem(k, "must be " + what + ": 16 to 128 letters and digits, as AWS access key ids are (got " + id.length()
                    + " characters" + (id.contains(":") ? "; the key id is written as itself, not as a secret reference" : "") + ")");
            return null;
        }
        return id;
    }
}
