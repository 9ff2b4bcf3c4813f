package org.cyverse.mesa.egress.injector;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.cyverse.mesa.egress.injector.github.GitHubStep;
import org.cyverse.mesa.egress.injector.sigv4.SigV4Step;

/** The credential kinds of SPEC.md step 5, in the order the admission runs them. */
public final class CredentialSteps {

    private CredentialSteps() {}

    /**
     * {@code injector} first (it refuses real secrets and out-of-scope sentinels for every kind),
     * then {@link GitHubStep} when a credential is {@code github_app}, then {@link SigV4Step} when
     * one is {@code aws_sigv4}.
     */
    public static List<CredentialStep> of(CredentialStep injector, List<CredentialSpec> credentials, SecretValues store) {
        List<CredentialStep> steps = new ArrayList<>(List.of(injector));
        GitHubStep github = new GitHubStep(credentials, store);
        if (github.any()) {
            steps.add(github);
        }
        if (credentials.stream().anyMatch(c -> c.sigv4() != null)) {
            steps.add(new SigV4Step(credentials, store, Clock.systemUTC()));
        }
        return List.copyOf(steps);
    }
}
