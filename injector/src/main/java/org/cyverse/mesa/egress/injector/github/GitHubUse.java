package org.cyverse.mesa.egress.injector.github;

/**
 * What a request did with a {@code github_app} credential, for the audit record and the body:
 * the repository it named, what kind of call it was, and, for a push, the check its command list
 * must pass before any of it leaves.
 *
 * @param repository {@code owner/name} as the request named it, or {@code null} (a repository-free call)
 * @param operation {@code rest}, {@code graphql}, {@code git-upload-pack}, {@code git-receive-pack}
 * @param push the branch rule's check of a {@code git-receive-pack} body, or {@code null}
 */
public record GitHubUse(String repository, String operation, PushCheck.Plan push) {

    /** Whether the client is git (its refusals are read as git prints them: plain text). */
    public boolean git() {
        return operation.startsWith("git-");
    }
}
