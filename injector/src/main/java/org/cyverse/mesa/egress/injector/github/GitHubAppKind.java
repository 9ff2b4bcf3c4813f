package org.cyverse.mesa.egress.injector.github;

import java.util.List;
import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Minter;
import org.cyverse.mesa.egress.injector.MintContext;
import org.cyverse.mesa.egress.injector.StepContext;

/**
 * {@code github_app}: installation tokens minted by {@link GitHubAppMinter}, put on requests by
 * {@link GitHubStep} within the job's repositories, and pushes held to the job's branch by
 * {@link PushCheck}.
 */
public final class GitHubAppKind implements CredentialKind {

    /** The one instance: a kind has no state. */
    public static final GitHubAppKind INSTANCE = new GitHubAppKind();

    private GitHubAppKind() {}

    @Override
    public String name() {
        return "github_app";
    }

    @Override
    public CredentialStep step(List<CredentialSpec> credentials, StepContext context) {
        return new GitHubStep(credentials, context);
    }

    @Override
    public Minter minter(CredentialSpec credential, MintContext context) {
        return new GitHubAppMinter(credential.name(), credential.kind(GitHubAppSpec.class), context.secrets(), context.http(),
                context.timeout(), context.clock());
    }
}
