package org.cyverse.mesa.egress.injector.github;

import java.util.List;
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

    private record Listed(Pattern path, List<String> methods, String why) {}

    private static final Pattern REF = Pattern.compile("/git/refs/(.+)");
    private static final List<Listed> LISTED = List.of(
            new Listed(Pattern.compile("/git/refs"), List.of("POST"), "creating a ref through the REST API (push the job's branch with git)"),
            new Listed(Pattern.compile("/contents/.*"), List.of("PUT", "DELETE"), "committing through the contents API (its branch is in the"
                    + " body; commit and push the job's branch with git)"),
            new Listed(Pattern.compile("/pulls/[^/]+/merge"), List.of("PUT"), "merging a pull request into its base branch"),
            new Listed(Pattern.compile("/merges"), List.of("POST"), "merging into a branch through the REST API"),
            new Listed(Pattern.compile("/merge-upstream"), List.of("POST"), "syncing a branch with its upstream"),
            new Listed(Pattern.compile("/branches/.+"), List.of("POST", "PUT", "PATCH", "DELETE"), "renaming or protecting branches"),
            new Listed(Pattern.compile("/releases(/.*)?"), List.of("POST", "PATCH", "DELETE"), "releases (they create and move tags)"),
            new Listed(Pattern.compile("/tags/.*"), List.of("POST", "PUT", "PATCH", "DELETE"), "tag protection"),
            new Listed(Pattern.compile("/?"), List.of("PATCH", "DELETE"), "changing or deleting the repository (its default branch, its"
                    + " settings)"),
            new Listed(Pattern.compile("/transfer"), List.of("POST"), "transferring the repository"));

    private RestRefRule() {}

    /** Why {@code method} on {@code rest} (the path after {@code /repos/{owner}/{repo}}) is refused by {@code rule}, or {@code null}. */
    static String refusal(String method, String rest, BranchRule rule) {
        Matcher ref = REF.matcher(rest);
        if (ref.matches() && !method.equals("GET") && !method.equals("HEAD")) {
            String name = "refs/" + ref.group(1);
            if (method.equals("DELETE")) {
                return "deleting " + name + " (branches and tags are not deleted from a sandbox)";
            }
            String why = rule.refusal(new ReceivePackCommands.Command("1".repeat(40), "1".repeat(40), name));
            return why == null ? null : "updating " + name + ": " + why;
        }
        for (Listed l : LISTED) {
            if (l.methods().contains(method) && l.path().matcher(rest).matches()) {
                return l.why() + " is refused: only " + rule.describe() + " may change, by git push";
            }
        }
        return null;
    }
}
