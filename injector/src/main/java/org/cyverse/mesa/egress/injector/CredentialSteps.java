package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The credential steps of SPEC.md step 5, in the order the admission runs them. */
public final class CredentialSteps {

    private CredentialSteps() {}

    /**
     * {@code injector} first (it refuses real secrets and out-of-scope sentinels for every kind),
     * then the step of each {@link CredentialKind} the credentials use that has one, in the order
     * the config first names each kind. Kinds with steps of their own cover hosts of their own, so
     * the order among them does not change what a request becomes.
     */
    public static List<CredentialStep> of(CredentialStep injector, List<CredentialSpec> credentials, SecretValues store) {
        return of(injector, credentials, StepContext.offline(store));
    }

    /** The same, with {@code context}'s client for the services steps ask (the running proxy). */
    public static List<CredentialStep> of(CredentialStep injector, List<CredentialSpec> credentials, StepContext context) {
        List<CredentialStep> steps = new ArrayList<>(List.of(injector));
        Set<CredentialKind> kinds = new LinkedHashSet<>();
        credentials.stream().filter(c -> c.kind() != null).forEach(c -> kinds.add(c.kind().kind()));
        for (CredentialKind kind : kinds) {
            CredentialStep step = kind.step(credentials, context);
            if (step != null) {
                steps.add(step);
            }
        }
        return List.copyOf(steps);
    }
}
