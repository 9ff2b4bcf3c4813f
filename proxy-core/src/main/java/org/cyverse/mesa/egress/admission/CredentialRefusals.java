package org.cyverse.mesa.egress.admission;

import java.util.Map;
import org.cyverse.mesa.egress.injector.Injection;

/** The refusals of SPEC.md step 5, by a credential kind's outcome: their reasons and hints (the rest is {@link Refusals}'). */
public final class CredentialRefusals {

    private CredentialRefusals() {}

    /** A refusal of SPEC.md step 5: what the credential step that refused {@code injection} found, as its reason. */
    public static Refusal credential(Injection injection, String host, String profile) {
        return credential(injection.outcome(), injection.credential(), host, profile, injection.detail());
    }

    /** A refusal of SPEC.md step 5 for a credential kind's {@code outcome} (a body check's too): its reason, as the step's. */
    public static Refusal credential(Injection.Outcome outcome, String credential, String host, String profile, String detail) {
        Reason reason = switch (outcome) {
            case MISMATCH -> Reason.CREDENTIAL_ENDPOINT_MISMATCH;
            case SECRET_LEAK -> Reason.SECRET_LEAK;
            case PLAINTEXT -> Reason.PLAINTEXT_CREDENTIAL;
            case UNAVAILABLE -> Reason.CREDENTIAL_UNAVAILABLE;
            case UNSUPPORTED -> Reason.SIGV4_UNSUPPORTED;
            case BAD_SIGNATURE -> Reason.SIGV4_SIGNATURE_MISMATCH;
            case MALFORMED -> Reason.BAD_REQUEST;
            case REPOSITORY_NOT_ALLOWED -> Reason.REPOSITORY_NOT_ALLOWED;
            case REF_NOT_ALLOWED -> Reason.REF_NOT_ALLOWED;
            case UNCHANGED, INJECTED -> throw new IllegalArgumentException("not a refusal: " + outcome);
        };
        return credential(reason, credential, host, profile, detail);
    }

    /**
     * A refusal of SPEC.md step 5 for credential {@code credential}: a sentinel out of scope, a
     * real secret from the client, a sentinel over plain http, or no value to inject.
     */
    public static Refusal credential(Reason reason, String credential, String host, String profile, String detail) {
        String hint = switch (reason) {
            case CREDENTIAL_ENDPOINT_MISMATCH -> "the placeholder of credential " + credential + " may only go to that credential's "
                    + "hosts; remove it from this request, or send it to the host it belongs to";
            case SECRET_LEAK -> "the request carried the real value of credential " + credential
                    + "; the agent should hold only its placeholder: rotate the secret if it was exposed";
            case PLAINTEXT_CREDENTIAL -> "credential " + credential + " is injected only over HTTPS: use https:// "
                    + "(or set allow_plaintext: true on the credential if the upstream has no TLS)";
            case CREDENTIAL_UNAVAILABLE -> "credential " + credential + " could not be fetched and no valid value is cached;"
                    + " the error says what its source or issuer answered last; check the proxy's log and /readyz, then retry";
            case SIGV4_UNSUPPORTED -> "the proxy re-signs AWS Signature Version 4 (AWS4-HMAC-SHA256) for credential " + credential
                    + ", in an Authorization header or a presigned URL; the error says what this request used and what to change";
            case SIGV4_SIGNATURE_MISMATCH -> "sign with credential " + credential + "'s sentinel key pair (AWS_ACCESS_KEY_ID and"
                    + " AWS_SECRET_ACCESS_KEY as the sandbox gives them); the proxy re-signs only what that pair signed";
            case REPOSITORY_NOT_ALLOWED -> "credential " + credential + " reaches only the job's repositories, with the REST"
                    + " calls that name them and a few repository-free reads; ask the job's owner to attach the repository";
            case REF_NOT_ALLOWED -> "credential " + credential + " pushes only to the job's branch, with git: push your work there"
                    + " and open a pull request; branches and tags are not deleted, releases not made, pull requests not merged";
            case GRAPHQL_NOT_ALLOWED -> "credential " + credential + " lets GraphQL queries go and the mutations that move no ref;"
                    + " commit to the job's branch with git or createCommitOnBranch naming it, and open a pull request";
            case BAD_REQUEST -> "fix the request's AWS signature (credential " + credential + "): the error says which part is wrong";
            default -> throw new IllegalArgumentException("not a credential refusal: " + reason);
        };
        return new Refusal(Refusals.status(reason), reason, Refusals.error(reason, host, detail), host, hint, null, 0, Map.of());
    }

}
