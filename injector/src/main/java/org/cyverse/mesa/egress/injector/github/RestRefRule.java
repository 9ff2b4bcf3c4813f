package org.cyverse.mesa.egress.injector.github;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The branch rule for REST calls within an allowed repository: the calls that move, create or
 * delete refs without {@code git push} (GitHub REST docs: "Git database", "Branches", "Pull
 * requests", "Repository contents", "Releases", "Repositories"). Reads go; writes that only add
 * objects, issues, comments, reviews or pull requests go; the ones that write a branch named in
 * their body (updating or creating a ref, the contents API, merging a branch) go when the body
 * names the job's branch, which a {@link RestWriteCheck} reads; the others listed here are refused.
 */
final class RestRefRule {

    /**
     * What the rule says of a call: refused (why), allowed, or allowed if its body's field names
     * the job's branch ({@code field}, with {@code call} and the {@code ref} the path names for messages).
     */
    record Ruling(String refused, RestWriteCheck.Field field, String call, String ref) {
        static final Ruling ALLOWED = new Ruling(null, null, null, null);

        static Ruling refused(String why) {
            return new Ruling(why, null, null, null);
        }

        static Ruling body(RestWriteCheck.Field field, String call, String ref) {
            return new Ruling(null, field, call, ref);
        }
    }

    private record Listed(Pattern path, String why) {}

    private static final Pattern REF = Pattern.compile("/git/refs/(.+)");
    private static final Pattern CONTENTS = Pattern.compile("/contents/.*");
    private static final List<Listed> LISTED = List.of(
            new Listed(Pattern.compile("/git/refs"), "changing refs through the REST API other than by creating the job's branch"),
            new Listed(CONTENTS, "the contents API other than PUT or DELETE on the job's branch"),
            new Listed(Pattern.compile("/pulls/[^/]+/merge"), "merging a pull request into its base branch"),
            new Listed(Pattern.compile("/pulls/[^/]+/update-branch"), "updating a pull request's head branch (it may be"
                    + " another's)"),
            new Listed(Pattern.compile("/merges"), "merging other than POST into the job's branch"),
            new Listed(Pattern.compile("/merge-upstream"), "syncing a branch with its upstream"),
            new Listed(Pattern.compile("/branches/.+"), "renaming or protecting branches"),
            new Listed(Pattern.compile("/releases(/.*)?"), "releases (they create and move tags)"),
            new Listed(Pattern.compile("/tags/.*"), "tag protection"),
            new Listed(Pattern.compile("/?"), "changing or deleting the repository (its default branch, its"
                    + " settings)"),
            new Listed(Pattern.compile("/transfer"), "transferring the repository"));

    private RestRefRule() {}

    /** What {@code rule} says of {@code method} on {@code rest} (the path after {@code /repos/{owner}/{repo}}). */
    static Ruling judge(String method, String rest, BranchRule rule) {
        String m = method.toUpperCase(Locale.ROOT);
        if (m.equals("GET") || m.equals("HEAD")) {
            return Ruling.ALLOWED;
        }
        Matcher ref = REF.matcher(rest);
        if (ref.matches()) {
            String name = "refs/" + ref.group(1);
            if (!m.equals("PATCH")) {
                return Ruling.refused(m + " of " + name + " (branches and tags are not deleted or changed from a sandbox but by git push)");
            }
            String why = rule.refusal(name);
            if (why != null) {
                return Ruling.refused("updating " + name + ": " + why);
            }
            return rule.forcePush() ? Ruling.ALLOWED : Ruling.body(RestWriteCheck.Field.FORCE, "updating " + name, name);
        }
        if (m.equals("POST") && rest.equals("/git/refs")) {
            return Ruling.body(RestWriteCheck.Field.REF, "creating a ref", null);
        }
        if ((m.equals("PUT") || m.equals("DELETE")) && CONTENTS.matcher(rest).matches()) {
            return Ruling.body(RestWriteCheck.Field.BRANCH, (m.equals("PUT") ? "writing " : "deleting ") + rest.substring(1)
                    + " through the contents API", null);
        }
        if (m.equals("POST") && rest.equals("/merges")) {
            return Ruling.body(RestWriteCheck.Field.BASE, "merging a branch", null);
        }
        for (Listed l : LISTED) {
            // Every method but a read: a server that takes POST for PATCH (or another spelling) must not slip past.
            if (l.path().matcher(rest).matches()) {
                return Ruling.refused(l.why() + " is refused: only " + rule.describe() + " may change");
            }
        }
        return Ruling.ALLOWED;
    }
}
