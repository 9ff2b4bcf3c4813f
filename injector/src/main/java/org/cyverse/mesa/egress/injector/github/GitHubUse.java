package org.cyverse.mesa.egress.injector.github;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import org.cyverse.mesa.egress.injector.AnswerStyle;
import org.cyverse.mesa.egress.injector.AuditPart;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.RequestUse;

/**
 * What a request did with a {@code github_app} credential, for the audit record and the body:
 * the repository it named, what kind of call it was, and the check its body must pass before any
 * of it leaves: a push's command list ({@link PushCheck}), or the branch a REST write names in its
 * body ({@link RestWriteCheck}). Per request, confined to its thread.
 */
public final class GitHubUse implements RequestUse {

    private final String repository;
    private final String operation;
    private final BodyCheck.Plan check;
    /** The body's check once the body began, whose refs the audit record names. */
    private BodyCheck started;

    /**
     * @param repository {@code owner/name} as the request named it, or {@code null} (a repository-free call)
     * @param operation {@code rest}, {@code graphql}, {@code git-upload-pack}, {@code git-receive-pack}, {@code git-lfs}
     * @param check the branch rule's check of the body ({@link PushCheck.Plan}, {@link RestWriteCheck.Plan}), or {@code null}
     */
    public GitHubUse(String repository, String operation, BodyCheck.Plan check) {
        this.repository = repository;
        this.operation = operation;
        this.check = check;
    }

    public String repository() {
        return repository;
    }

    public String operation() {
        return operation;
    }

    /** The branch rule's check of the body, or {@code null}. */
    public BodyCheck.Plan check() {
        return check;
    }

    /** Whether the client is git or git-lfs (the token goes as git's Basic {@code x-access-token}). */
    public boolean git() {
        return operation.startsWith("git-");
    }

    @Override
    public BodyCheck.Plan body() {
        return check == null ? null : () -> started = check.start();
    }

    /** git prints plain text; {@code gh}, git-lfs and other REST clients print a JSON error's {@code message}. */
    @Override
    public AnswerStyle answerStyle() {
        return git() && !operation.equals("git-lfs") ? AnswerStyle.PLAIN_TEXT : AnswerStyle.JSON_MESSAGE;
    }

    @Override
    public AuditPart audit() {
        List<String> refs = started instanceof PushCheck push ? (push.outcome() == PushCheck.Outcome.READING ? null : List.copyOf(push.refs()))
                : started instanceof RestWriteCheck rest ? rest.refs() : null;
        return new Audit(repository, operation, refs);
    }

    @Override
    public String toString() {
        return "GitHubUse[" + operation + (repository == null ? "" : " " + repository) + "]";
    }

    /**
     * The audit record's {@code github} (an extension of SPEC.md): {@code repository}
     * ({@code owner/name} as the request named it, or absent for a repository-free call),
     * {@code operation} and {@code refs}, the refs a push named; a part without a value is left out.
     */
    public record Audit(String repository, String operation, List<String> refs) implements AuditPart {
        @Override
        public String field() {
            return "github";
        }

        @Override
        public void writeValue(JsonGenerator g) throws IOException {
            g.writeStartObject();
            if (repository != null) {
                g.writeStringField("repository", repository);
            }
            if (operation != null) {
                g.writeStringField("operation", operation);
            }
            if (refs != null) {
                g.writeArrayFieldStart("refs");
                for (String ref : refs) {
                    g.writeString(ref);
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
    }
}
