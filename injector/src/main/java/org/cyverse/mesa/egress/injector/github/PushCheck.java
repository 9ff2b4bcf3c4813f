package org.cyverse.mesa.egress.injector.github;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.cyverse.mesa.egress.injector.AnswerStyle;
import org.cyverse.mesa.egress.injector.BodyCheck;

/**
 * The branch rule on one {@code git-receive-pack} body: its command list is read as it streams
 * in ({@link ReceivePackCommands}), and the push goes on only when every command passes the
 * {@link BranchRule}; one command refused refuses the whole push (a push of the job branch and
 * {@code main} together is refused whole, nothing of it forwarded). When the rule refuses force
 * pushes and the push updates an existing branch, the pack behind the list is read as it streams
 * on ({@link PackCommits}), and at its end each update must be a fast-forward, or the push is
 * refused before its last bytes leave: the old id reachable from the new one through the pack's
 * commits, or, where the pack's history stops at commits GitHub already has (a push after merging
 * or rebasing onto a moved {@code main}), the old id an ancestor of one of those as GitHub says
 * ({@link GitHubAncestry}; the last bytes wait for the answer, {@link Status#WAIT}). Not thread-safe.
 *
 * <p>As a {@link BodyCheck}: the request head and the body are held until the command list has
 * been judged, so that a refused push sends nothing upstream, not even the head; only the command
 * list is copied, the pack streams on (read only to tell a fast-forward). A refused push is
 * answered once the client has sent its whole body, read and dropped meanwhile
 * ({@link Status#DROP}): git's HTTP client (curl) that gets an answer while it is still sending
 * would send the request again on a new connection, and git would then print an error about that
 * second try instead of the refusal.
 */
public final class PushCheck implements BodyCheck {

    /**
     * What a receive-pack request is checked against, from the admission.
     *
     * @param credential the {@code github_app} credential
     * @param repository {@code owner/name} as the request named it
     * @param ancestry what asks GitHub about commits the pack does not carry, or {@code null} (nothing is asked: such a push is refused)
     */
    public record Plan(String credential, String repository, BranchRule rule, GitHubAncestry ancestry) implements BodyCheck.Plan {
        public Plan(String credential, String repository, BranchRule rule) {
            this(credential, repository, rule, null);
        }

        @Override
        public PushCheck start() {
            return new PushCheck(this);
        }
    }

    /**
     * What the check found: still reading the list, the list may go while the pack is checked for
     * fast-forwards, GitHub is asked about commits the pack builds on, the push may go, refused by
     * the rule, or not a command list.
     */
    public enum Outcome { READING, CHECKING_PACK, ASKING, ALLOWED, REFUSED, MALFORMED }

    private final Plan plan;
    private final ReceivePackCommands commands = new ReceivePackCommands();
    private Outcome outcome = Outcome.READING;
    private Map<String, String> reasons = Map.of();
    private PackCommits pack;
    private String malformed;
    /** Whether the body's last chunk was read. */
    private boolean ended;
    /** The questions asked of GitHub, by ref, while {@link Outcome#ASKING}. */
    private Map<String, CompletableFuture<GitHubAncestry.Answer>> questions = Map.of();

    private PushCheck(Plan plan) {
        this.plan = plan;
    }

    /** Reads more of the body; what the check found so far. */
    public Outcome feed(byte[] bytes, int offset, int length) {
        if (outcome == Outcome.CHECKING_PACK) {
            pack.feed(bytes, offset, length);
            // Decided the moment the pack ends (or breaks), not at the body's end: the upstream
            // applies a pack once it has it whole, whatever follows, so the chunk that completes
            // it must not leave before the verdict.
            return pack.done() || pack.problem() != null ? fastForwards() : outcome;
        }
        return outcome == Outcome.READING ? judge(commands.feed(bytes, offset, length)) : outcome;
    }

    /** The body ended. */
    public Outcome finish() {
        if (outcome == Outcome.CHECKING_PACK) {
            return fastForwards();
        }
        return outcome == Outcome.READING ? judge(commands.finish()) : outcome;
    }

    /** At the pack's end: every update of an existing branch must be a fast-forward. */
    private Outcome fastForwards() {
        if (!pack.done()) {
            outcome = Outcome.MALFORMED;
            malformed = "the push's pack " + (pack.problem() != null ? "cannot be read: " + pack.problem() : "ended early");
            return outcome;
        }
        Map<String, String> refused = new LinkedHashMap<>();
        Map<String, CompletableFuture<GitHubAncestry.Answer>> asked = new LinkedHashMap<>();
        String first = null;
        for (ReceivePackCommands.Command c : commands.commands()) {
            String why = null;
            if (!c.creates() && !c.deletes() && !pack.reaches(c.newId(), c.oldId())) {
                Set<String> tips = pack.boundary(c.newId());
                if (plan.ancestry() != null && !tips.isEmpty()) {
                    asked.put(c.ref(), plan.ancestry().isAncestor(plan.repository(), c.oldId(), tips));
                } else {
                    why = NOT_FAST_FORWARD;
                }
            }
            first = first == null && why != null ? c.ref() + " " + why : first;
            refused.put(c.ref(), why);
        }
        if (first == null && !asked.isEmpty()) {
            questions = asked;
            reasons = refused;
            outcome = Outcome.ASKING;
            return outcome;
        }
        return settle(refused, first);
    }

    private static final String NOT_FAST_FORWARD = "is not a fast-forward (force pushes are refused: force_push is false)";

    /** GitHub's answers are in: each asked update proved a fast-forward, or the push is refused. */
    private Outcome answered() {
        Map<String, String> refused = new LinkedHashMap<>(reasons);
        String first = null;
        for (Map.Entry<String, CompletableFuture<GitHubAncestry.Answer>> q : questions.entrySet()) {
            GitHubAncestry.Answer answer = q.getValue().getNow(new GitHubAncestry.Answer.Unknown("no answer"));
            String why = answer instanceof GitHubAncestry.Answer.Unknown u ? "could not be proved a fast-forward: " + u.why()
                    + " (what is not proved is refused: force_push is false)"
                    : answer instanceof GitHubAncestry.Answer.Refuted ? NOT_FAST_FORWARD : null;
            first = first == null && why != null ? q.getKey() + " " + why : first;
            refused.put(q.getKey(), why);
        }
        questions = Map.of();
        reasons = Map.of();
        return settle(refused, first);
    }

    private Outcome judge(ReceivePackCommands.State state) {
        switch (state) {
            case READING -> outcome = Outcome.READING;
            case MALFORMED -> outcome = Outcome.MALFORMED;
            case DONE -> {
                Map<String, String> refused = new LinkedHashMap<>();
                String first = null;
                for (ReceivePackCommands.Command c : commands.commands()) {
                    String why = plan.rule().refusal(c);
                    if (why != null && first == null) {
                        first = c.ref() + ": " + why;
                    }
                    refused.put(c.ref(), why);
                }
                if (first == null && !plan.rule().forcePush() && commands.commands().stream().anyMatch(c -> !c.creates() && !c.deletes())) {
                    pack = new PackCommits(); // an update of an existing branch: a fast-forward, or refused at the pack's end
                    outcome = Outcome.CHECKING_PACK;
                    byte[] rest = commands.rest();
                    return feed(rest, 0, rest.length);
                }
                return settle(refused, first);
            }
        }
        return outcome;
    }

    private Outcome settle(Map<String, String> refused, String first) {
        if (first == null) {
            outcome = Outcome.ALLOWED;
        } else {
            refused.replaceAll((ref, why) -> "refused by egress policy: " + (why != null ? why : "the same push updates " + first));
            reasons = refused;
            outcome = Outcome.REFUSED;
        }
        return outcome;
    }

    @Override
    public Status inspect(byte[] bytes, boolean last) {
        if (reads()) {
            feed(bytes, 0, bytes.length);
            if (last) {
                finish();
            }
        }
        ended |= last;
        return status();
    }

    private Status status() {
        if (refused()) {
            return ended ? Status.REFUSE : Status.DROP; // refused before the end: the rest is dropped first
        }
        return switch (outcome) {
            case READING -> Status.HOLD;
            case ASKING -> Status.WAIT;
            default -> Status.CONTINUE;
        };
    }

    /** Completes once GitHub answered every question (or its time ran out). */
    @Override
    public CompletableFuture<?> awaiting() {
        return CompletableFuture.allOf(questions.values().toArray(CompletableFuture[]::new));
    }

    @Override
    public Status resume() {
        if (outcome == Outcome.ASKING) {
            answered();
        }
        return status();
    }

    /** Only the command list and, for fast-forwards, the pack are read; an allowed or refused push's bytes are not. */
    @Override
    public boolean reads() {
        return outcome == Outcome.READING || outcome == Outcome.CHECKING_PACK;
    }

    @Override
    public boolean holdsHead() {
        return true;
    }

    /** Whether the pack is being read for fast-forwards: the push may still be refused at its last chunk. */
    @Override
    public boolean judgedAtEnd() {
        return outcome == Outcome.CHECKING_PACK || outcome == Outcome.ASKING;
    }

    @Override
    public BodyCheck.Refusal refusal() {
        if (outcome == Outcome.REFUSED) {
            byte[] report = report();
            return new BodyCheck.Refusal("ref_not_allowed", plan.credential(), detail(), AnswerStyle.PLAIN_TEXT,
                    report == null ? null : new Answer(200, ReceivePackReport.CONTENT_TYPE, report));
        }
        return outcome == Outcome.MALFORMED ? new BodyCheck.Refusal("bad_request", null, "git receive-pack: " + detail(),
                AnswerStyle.PLAIN_TEXT, null) : null;
    }

    private boolean refused() {
        return outcome == Outcome.REFUSED || outcome == Outcome.MALFORMED;
    }

    /** Frees what reading the pack holds (an abandoned push). */
    @Override
    public void close() {
        if (pack != null) {
            pack.close();
        }
    }

    public Outcome outcome() {
        return outcome;
    }

    public Plan plan() {
        return plan;
    }

    /** Every ref the push names, in its order (for the audit record). */
    public List<String> refs() {
        return commands.commands().stream().map(ReceivePackCommands.Command::ref).toList();
    }

    /** For a refused push: each ref with why; for a malformed body: why it is not a command list. */
    public String detail() {
        if (outcome == Outcome.MALFORMED) {
            return malformed != null ? malformed : commands.problem();
        }
        return reasons.entrySet().stream().filter(e -> !e.getValue().contains("the same push updates")).findFirst()
                .map(e -> "the push to " + plan.repository() + " updates " + e.getKey() + ", " + e.getValue().replace("refused by egress"
                        + " policy: ", "and ") + " (credential " + plan.credential() + ")")
                .orElse("the push was refused");
    }

    /** The receive-pack answer git reads for a refused push, or {@code null} when the client asked for none. */
    public byte[] report() {
        return ReceivePackReport.refused(reasons, "mesa-egress: " + detail(), commands.capabilities());
    }
}
