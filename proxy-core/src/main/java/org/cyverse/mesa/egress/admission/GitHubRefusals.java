package org.cyverse.mesa.egress.admission;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cyverse.mesa.egress.injector.github.GitHubUse;
import org.cyverse.mesa.egress.injector.github.PushCheck;
import org.cyverse.mesa.egress.injector.github.ReceivePackReport;

/**
 * Refusals of {@code github_app} requests in the form their client shows a person: git prints a
 * {@code text/plain} error body as {@code remote: ...} lines (http.c, {@code show_http_message}),
 * and a refused push as a receive-pack report; {@code gh} prints a JSON error's {@code message}.
 */
public final class GitHubRefusals {

    private GitHubRefusals() {}

    /** {@code refusal} with the answer its client reads: plain text for git, {@code message} in the JSON for the REST API. */
    static Refusal readable(Refusal refusal, GitHubUse use) {
        if (use.git()) {
            String text = "mesa-egress: " + refusal.reason().code() + ": " + refusal.error() + "\nmesa-egress: hint: " + refusal.hint()
                    + "\n";
            return refusal.answeredAs(new Refusal.Answer(refusal.status(), "text/plain; charset=utf-8",
                    text.getBytes(StandardCharsets.UTF_8)));
        }
        Map<String, Object> details = new LinkedHashMap<>(refusal.details());
        details.put("message", refusal.error() + "; " + refusal.hint());
        return new Refusal(refusal.status(), refusal.reason(), refusal.error(), refusal.host(), refusal.hint(), refusal.rule(),
                refusal.retryAfterSeconds(), details);
    }

    /** {@code refusal} of a receive-pack body (not a command list, or refused for a client that asked for no report), as plain text git prints. */
    public static Refusal unreadablePush(PushCheck check, Refusal refusal) {
        return readable(refusal, new GitHubUse(check.plan().repository(), "git-receive-pack", null));
    }

    /**
     * A push the branch rule refused, answered as git reads it: 200 with a receive-pack report
     * ({@code ng <ref> refused by egress policy: ...} for each ref), or the plain-text refusal when
     * the client asked for no report.
     */
    public static Refusal push(PushCheck check, String host, String profile) {
        Refusal refusal = CredentialRefusals.credential(Reason.REF_NOT_ALLOWED, check.plan().credential(),
                host, profile, check.detail());
        byte[] report = check.report();
        return report == null ? unreadablePush(check, refusal) : refusal.answeredAs(new Refusal.Answer(200, ReceivePackReport.CONTENT_TYPE,
                report));
    }
}
