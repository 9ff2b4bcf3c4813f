package org.cyverse.mesa.egress.config;

import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.sigv4.SigV4Keys;

/** Reads a credential's {@code aws_sigv4} block (SPEC.md "Additions": {@code aws_sigv4: {sentinel_access_key_id: ..., ...}}). */
final class SigV4Reader implements KindReader {

    static final List<String> KEYS = List.of("sentinel_access_key_id", "sentinel_secret_access_key", "access_key_id", "secret_access_key",
            "session_token");
    /** The keys of a credential that an aws_sigv4 credential has no use for: its block says all of it. */
    static final List<String> EXCLUSIVE = List.of("secret", "sentinel", "header", "format", "mint", "body_substitution");

    @Override
    public String key() {
        return "aws_sigv4";
    }

    /** The block gives the credential its secret (the real secret access key) and its sentinel (the sentinel key id). */
    @Override
    public Read read(MapReader credential, Context context) {
        return read(credential, context.broker(), context.sentinels(), context.key());
    }

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
        String sentinelText = b.requiredString("sentinel_access_key_id");
        String sentinelId = sentinelText == null ? null : keyId(b, "sentinel_access_key_id", sentinelText, "the agent's AWS_ACCESS_KEY_ID");
        String sentinelSecret = b.requiredString("sentinel_secret_access_key");
        if (sentinelSecret != null && (sentinelSecret.length() < 16 || CredentialReader.hasControl(sentinelSecret))) {
            b.problem("sentinel_secret_access_key", "must be the agent's AWS_SECRET_ACCESS_KEY: 16 characters or more, without control"
                    + " characters");
        }
        String idText = b.requiredString("access_key_id");
        String realId = null;
        SecretRef realIdRef = null;
        if (idText != null && looksLikeReference(idText)) {
            realIdRef = CredentialReader.secretRef(b, "access_key_id", idText, broker);
        } else if (idText != null) {
            realId = keyId(b, "access_key_id", idText, "the real access key id, or a secret reference to it (temporary credentials)");
        }
        if (realId != null && realId.equals(sentinelId)) {
            b.problem("access_key_id", "is the sentinel_access_key_id: the agent must not hold the real key id's pair");
        }
        String secretText = b.requiredString("secret_access_key");
        SecretRef secret = secretText == null ? null : CredentialReader.secretRef(b, "secret_access_key", secretText, broker);
        SecretRef token = null;
        if (b.present("session_token")) {
            String tokenText = b.requiredString("session_token");
            if (tokenText != null && !looksLikeReference(tokenText)) {
                b.problem("session_token", "must be a secret reference (file:, env: or openbao:), never the token itself: it is a secret");
            } else if (tokenText != null) {
                token = CredentialReader.secretRef(b, "session_token", tokenText, broker);
            }
        }
        if (secret != null) {
            sameRead(b, "access_key_id", realIdRef, secret);
            sameRead(b, "session_token", token, secret);
        }
        if (token != null && realIdRef == null && realId != null) {
            b.problem("session_token", "comes with temporary credentials, whose key id changes with each issue: give access_key_id as a"
                    + " reference read with the secret (e.g. openbao:aws/creds/ROLE#access_key)");
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
        return new Read(new SigV4Keys(sentinelId, sentinelSecret, realId, realIdRef, token), secret, sentinelId, List.of(), null);
    }

    private static String keyId(MapReader b, String k, String id, String what) {
        if (!SigV4Keys.KEY_ID.matcher(id).matches()) {
            b.problem(k, "must be " + what + ": 16 to 128 letters and digits, as AWS access key ids are (got " + id.length()
                    + " characters" + (id.contains(":") ? "; the key id is written as itself, not as a secret reference" : "")
                    + ")");
            return null;
        }
        return id;
    }

    /** An access key id is letters and digits only: a colon makes it a reference ({@code openbao:...}, {@code file:...}). */
    private static boolean looksLikeReference(String text) {
        return text.indexOf(':') > 0;
    }

    /**
     * OpenBao's AWS engine issues a new key id, secret key and session token with every read, so the three must come
     * from one read: the same path. A file or the environment may hold them apart (Kubernetes mounts one key per file).
     */
    private static void sameRead(MapReader b, String k, SecretRef part, SecretRef secret) {
        if (part == null) {
            return;
        }
        if (secret.scheme().equals("openbao") != part.scheme().equals("openbao")
                || secret.scheme().equals("openbao") && !part.location().equals(secret.location())) {
            b.problem(k, "must be read from the same OpenBao path as secret_access_key (" + (secret.scheme().equals("openbao")
                    ? secret.location() : part.location()) + "): OpenBao's AWS engine issues a new key pair with each read, so the key"
                    + " id, secret key and session token must come from one read (e.g. openbao:aws/creds/ROLE#access_key,"
                    + " #secret_key and #security_token)");
        }
    }
}
