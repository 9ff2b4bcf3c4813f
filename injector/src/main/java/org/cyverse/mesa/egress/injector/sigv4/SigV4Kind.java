package org.cyverse.mesa.egress.injector.sigv4;

import java.time.Clock;
import java.util.List;
import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.StepContext;

/**
 * {@code aws_sigv4}: requests an S3 client signed with the sentinel key pair are checked and signed
 * again with the real key ({@link SigV4Step}); signed aws-chunked bodies are re-signed chunk by
 * chunk ({@link ChunkResigner}). The values are read, not minted.
 */
public final class SigV4Kind implements CredentialKind {

    /** The one instance: a kind has no state. */
    public static final SigV4Kind INSTANCE = new SigV4Kind();

    private SigV4Kind() {}

    @Override
    public String name() {
        return "aws_sigv4";
    }

    @Override
    public CredentialStep step(List<CredentialSpec> credentials, StepContext context) {
        return new SigV4Step(credentials, context.store(), Clock.systemUTC());
    }
}
