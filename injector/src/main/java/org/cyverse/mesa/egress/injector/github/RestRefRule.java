package org.cyverse.mesa.egress.injector.github;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The branch rule for REST calls within an allowed repository: the calls that move, create or
 * delete refs without {@code git push} (GitHub REST docs: "Git database", "Branches", "Pull
 * requests", "Repository contents", "Releases", "Repositories"). Reads go; writes that only add
 * objects, issues, comments, reviews or pull requests go; the ones listed here are refused,
 * except an update of the job's branch itself. A call listed here that names its ref in the body
 * (contents, merges) is refused whole: the proxy decides from the head, before the body.
 */
final class RestRefRule {

    private record Listed(Pattern path, String why) {}

    private static final Pattern REF = Pattern.compile("/git/refs/(.+)");
    private static final List<Listed> LISTED = List.of(
            new Listed(Pattern.compile("/git/refs"), "creating a ref through the REST API (push the job's branch with git)"),
            new Listed(Pattern.compile("/contents/.*"), "committing through the contents API (its branch is in the"
                    + " body; commit and push the job's branch with git)"),
            new Listed(Pattern.compile("/pulls/[^/]+/merge"), "merging a pull request into its base branch"),
            new Listed(Pattern.compile("/pulls/[^/]+/update-branch"), "updating a pull request's head branch (it may be"
                    + " another's)"),
            new Listed(Pattern.compile("/merges"), "merging into a branch through the REST API"),
            new Listed(Pattern.compile("/merge-upstream"), "syncing a branch with its upstream"),
            new Listed(Pattern.compile("/branches/.+"), "renaming or protecting branches"),
            new Listed(Pattern.compile("/releases(/.*)?"), "releases (they create and move tags)"),
            new Listed(Pattern.compile("/tags/.*"), "tag protection"),
            new Listed(Pattern.compile("/?"), "changing or deleting the repository (its default branch, its"
                    + " settings)"),
            new Listed(Pattern.compile("/transfer"), "transferring the repository"));

    private RestRefRule() {}

    /** Why {@code method} on {@code rest} (the path after {@code /repos/{owner}/{repo}}) is refused by {@code rule}, or {@code null}. */
    static String refusal(String method, String rest, BranchRule rule) {
        String m = method.toUpperCase(Locale.ROOT);
        boolean read = m.equals("GET") || m.equals("HEAD");
        Matcher ref = REF.matcher(rest);
        if (ref.matches() && !read) {
            String name = "refs/" + ref.group(1);
            if (!m.equals("PATCH")) {
                return m + " of " + name + " (branches and tags are not deleted or changed from a sandbox but by git push)";
            }
            String why = rule.refusal(new ReceivePackCommands.Command("1".repeat(40), "1".repeat(40), name));
            if (why == null && !rule.forcePush()) {
                why = "the REST API's ref update may force (its body says so, which the proxy does not read): push with git, or set"
                        + " force_push: true";
            }
            return why == null ? null : "updating " + name + ": " + why;
        }
        for (Listed l : LISTED) {
            // Every method but a read: a server that takes POST for PATCH (or another spelling) must not slip past.
            if (!read && l.path().matcher(rest).matches()) {
                return l.why() + " is refused: only " + rule.describe() + " may change, by git push";
            }
        }
        return null;
    }
}
