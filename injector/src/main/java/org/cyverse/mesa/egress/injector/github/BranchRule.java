package org.cyverse.mesa.egress.injector.github;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which refs a job's pushes may update: the job's branch, or branches matching a pattern
 * ({@code agent/job-17/*}: {@code *} stands for any characters but {@code /}, {@code **} for any).
 * Matched exactly and case-sensitively, as git compares ref names: {@code refs/heads/Agent/x} is
 * not {@code refs/heads/agent/x}. Deleting a branch and any tag are never allowed; an update that
 * is not a fast-forward is allowed only with {@code forcePush} (told from the push's pack, {@link PackCommits}).
 *
 * @param branches the patterns as configured, without {@code refs/heads/}
 * @param forcePush whether an update of the job's branch may rewrite it ({@code force_push})
 */
public record BranchRule(List<String> branches, boolean forcePush) {

    /** A rule that refuses force pushes. */
    public BranchRule(List<String> branches) {
        this(branches, false);
    }


    private static final String HEADS = "refs/heads/";
    /** git check-ref-format: characters no ref name may hold. */
    private static final Pattern FORBIDDEN = Pattern.compile("[\\x00-\\x20\\x7f~^:?\\[\\\\]");

    public BranchRule {
        branches = List.copyOf(branches);
        if (branches.isEmpty()) {
            throw new IllegalArgumentException("a branch rule needs at least one branch");
        }
    }

    /** Why {@code pattern} (a configured branch, {@code refs/heads/} prefix allowed) cannot be a rule, or {@code null}. */
    public static String problem(String pattern) {
        String name = pattern.startsWith(HEADS) ? pattern.substring(HEADS.length()) : pattern;
        String bad = refNameProblem(HEADS + name.replace("*", "x"));
        if (bad != null) {
            return bad;
        }
        return name.replace("**", "").replace("*", "").isEmpty() ? "must name a branch, not match every branch" : null;
    }

    /** {@code pattern} without {@code refs/heads/}. */
    public static String branchOf(String pattern) {
        return pattern.startsWith(HEADS) ? pattern.substring(HEADS.length()) : pattern;
    }

    /**
     * Why {@code ref} is not a well-formed ref name ({@code git check-ref-format}'s rules), or
     * {@code null}. A push naming a ref git itself would refuse is refused before it leaves: the
     * upstream may read it differently from the rule.
     */
    public static String refNameProblem(String ref) {
        if (ref.isEmpty() || ref.length() > 1024) {
            return "a ref name must be 1 to 1024 characters";
        }
        if (FORBIDDEN.matcher(ref).find() || ref.contains("*")) {
            return "a ref name must not hold control characters, spaces or any of ~ ^ : ? * [ \\";
        }
        if (ref.contains("..") || ref.contains("@{") || ref.contains("//") || ref.endsWith("/") || ref.endsWith(".")
                || ref.equals("@")) {
            return "a ref name must not hold \"..\", \"@{\" or \"//\", nor end with \"/\" or \".\"";
        }
        for (String segment : ref.split("/")) {
            if (segment.startsWith(".") || segment.endsWith(".lock")) {
                return "no part of a ref name may begin with \".\" or end with \".lock\"";
            }
        }
        return null;
    }

    /** Why this rule refuses {@code command}, or {@code null} when it may go. */
    public String refusal(ReceivePackCommands.Command command) {
        String why = refusal(command.ref());
        return why == null && command.deletes() ? "branches are not deleted from a sandbox" : why;
    }

    /**
     * Why this rule refuses writing {@code ref} (creating or updating it; never deleting), or
     * {@code null}: the REST and GraphQL writes, which name the ref and not a command.
     */
    public String refusal(String ref) {
        String bad = refNameProblem(ref);
        if (bad != null) {
            return bad;
        }
        if (ref.startsWith("refs/tags/")) {
            return "tags are not pushed from a sandbox";
        }
        if (!ref.startsWith(HEADS) || !matchesAny(ref.substring(HEADS.length()))) {
            return "only " + describe() + " may be pushed";
        }
        return null;
    }

    private boolean matchesAny(String branch) {
        return branches.stream().anyMatch(p -> matches(p, branch));
    }

    static boolean matches(String pattern, String branch) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '*' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
                regex.append(".+");
                i++;
            } else if (c == '*') {
                regex.append("[^/]+");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return branch.matches(regex.toString());
    }

    /** For messages: {@code refs/heads/agent/job-17}, or the patterns joined. */
    public String describe() {
        return String.join(" or ", branches.stream().map(b -> HEADS + b).toList());
    }
}
