package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.allowlist.Reason;
import org.cyverse.mesa.egress.injector.Injection;

/** Maps a refused {@link Injection} to its answer (SPEC.md step 5); part of {@link Refusals}' one place. */
final class CredentialRefusals {

    private CredentialRefusals() {}

    static Refusal of(Injection injection, String host, String profile) {
        String credential = injection.credential();
        String detail = injection.detail();
        switch (injection.outcome()) {
            case MISMATCH:
                return Refusals.of(Reason.CREDENTIAL_ENDPOINT_MISMATCH, host, profile, detail)
                        .withHint("the placeholder of credential " + credential + " may only go to that credential's hosts; "
                                + "remove it from this request, or send it to the host it belongs to");
            case SECRET_LEAK:
                return Refusals.of(Reason.SECRET_LEAK, host, profile, detail)
                        .withHint("the request carried the real value of credential " + credential
                                + "; the agent should hold only its placeholder: rotate the secret if it was exposed");
            case PLAINTEXT:
                return Refusals.of(Reason.PLAINTEXT_CREDENTIAL, host, profile, detail)
                        .withHint("credential " + credential + " is injected only over HTTPS: use https:// "
                                + "(or set allow_plaintext: true on the credential if the upstream has no TLS)");
            case UNAVAILABLE:
                return Refusals.of(Reason.CREDENTIAL_UNAVAILABLE, host, profile, detail)
                        .withHint("credential " + credential + " could not be fetched and no valid value is cached; "
                                + "check the proxy's log and /readyz, then retry");
            default:
                throw new IllegalArgumentException("not a refusal: " + injection.outcome());
        }
    }
}
