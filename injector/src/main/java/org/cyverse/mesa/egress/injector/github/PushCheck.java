package org.cyverse.mesa.egress.injector.github;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The branch rule on one {@code git-receive-pack} body: its command list is read as it streams
 * in ({@link ReceivePackCommands}), and the push goes on only when every command passes the
 * {@link BranchRule}; one command refused refuses the whole push (a push of the job branch and
 * {@code main} together is refused whole, nothing of it forwarded). Not thread-safe.
 */
public final class PushCheck {

    /**
     * What a receive-pack request is checked against, from the admission.
     *
     * @param credential the {@code github_app} credential
     * @param repository {@code owner/name} as the request named it
     */
    public record Plan(String credential, String repository, BranchRule rule) {
        public PushCheck start() {
            return new PushCheck(this);
        }
    }

    /** What the check found: still reading, the push may go, refused by the rule, or not a command list. */
    public enum Outcome { READING, ALLOWED, REFUSED, MALFORMED }

    private final Plan plan;
    private final ReceivePackCommands commands = new ReceivePackCommands();
    private Outcome outcome = Outcome.READING;
    private Map<String, String> reasons = Map.of();

    private PushCheck(Plan plan) {
        this.plan = plan;
    }

    /** Reads more of the body; what the check found so far. */
    public Outcome feed(byte[] bytes, int offset, int length) {
        return outcome == Outcome.READING ? judge(commands.feed(bytes, offset, length)) : outcome;
    }

    /** The body ended. */
    public Outcome finish() {
        return outcome == Outcome.READING ? judge(commands.finish()) : outcome;
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
                if (first == null) {
                    outcome = Outcome.ALLOWED;
                } else {
                    String cause = first;
                    refused.replaceAll((ref, why) -> "refused by egress policy: " + (why != null ? why : "the same push updates " + cause));
                    reasons = refused;
                    outcome = Outcome.REFUSED;
                }
            }
        }
        return outcome;
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
            return commands.problem();
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
