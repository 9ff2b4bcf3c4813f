package org.cyverse.mesa.egress.injector.github;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import graphql.language.Document;
import graphql.parser.Parser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.injector.AnswerStyle;
import org.cyverse.mesa.egress.injector.BodyCheck;

/**
 * The branch rule on a GitHub GraphQL request ({@code POST /graphql}, issue 39: mutations moved
 * refs past the rule): the body ({@code {query, variables, operationName}}) is read whole while
 * the head waits, its document parsed with graphql-java's parser (not executed), and every
 * mutation in it judged by {@link GraphQlMutations}; a refused one is 403
 * {@code graphql_not_allowed}, nothing of it sent. A body that is not one such JSON object, a
 * document that does not parse, or a body past {@value #MAX_BODY} bytes is refused too: what the
 * proxy cannot read, it cannot tell from a mutation. Not thread-safe.
 */
public final class GraphQlCheck implements BodyCheck {

    /** The most body bytes read (a createCommitOnBranch carries its files' contents). */
    public static final int MAX_BODY = 16 << 20;
    /** A key given twice anywhere is refused: parsers differ on which one wins, and GitHub's must read what was judged. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /**
     * What a GraphQL request is checked against, from the admission.
     *
     * @param repositories the job's, {@code owner/name}
     * @param allowed mutation names the config lets go ({@code graphql_allow})
     */
    public record Plan(String credential, BranchRule rule, List<String> repositories, Set<String> allowed) implements BodyCheck.Plan {
        @Override
        public GraphQlCheck start() {
            return new GraphQlCheck(this);
        }
    }

    private final Plan plan;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private boolean decided;
    private boolean ended;
    private Refusal refusal;

    private GraphQlCheck(Plan plan) {
        this.plan = plan;
    }

    @Override
    public Status inspect(byte[] bytes, boolean last) {
        ended |= last;
        if (!decided) {
            if (body.size() + (long) bytes.length > MAX_BODY) {
                refuse("bad_request", "the GraphQL request is larger than " + (MAX_BODY >> 20) + " MiB, the most the proxy reads to judge"
                        + " its mutations");
            } else {
                body.write(bytes, 0, bytes.length);
                if (last) {
                    judge();
                }
            }
        }
        if (refusal != null) {
            return ended ? Status.REFUSE : Status.DROP;
        }
        return decided ? Status.CONTINUE : Status.HOLD;
    }

    private void judge() {
        decided = true;
        JsonNode request;
        try {
            request = JSON.readTree(body.toByteArray());
        } catch (IOException e) {
            refuse("bad_request", "the GraphQL request is not JSON, or gives a key twice");
            return;
        }
        if (request == null || !request.isObject() || !request.path("query").isTextual()) {
            refuse("bad_request", "the GraphQL request is not one {query, variables} object (batches are not GitHub's)");
            return;
        }
        Document document;
        try {
            document = Parser.parse(request.get("query").asText());
        } catch (RuntimeException e) {
            refuse("graphql_not_allowed", "the GraphQL document does not parse (" + e.getClass().getSimpleName() + "), so its mutations"
                    + " cannot be judged");
            return;
        }
        JsonNode variables = request.path("variables").isObject() ? request.get("variables") : null;
        String why = new GraphQlMutations(plan.rule(), plan.repositories(), plan.allowed()).refusal(document, variables);
        body.reset(); // judged: the gate holds the bytes that go on
        if (why != null) {
            refuse("graphql_not_allowed", "the GraphQL mutation " + why + " (credential " + plan.credential() + "; only "
                    + plan.rule().describe() + " may change)");
        }
    }

    private void refuse(String reason, String detail) {
        decided = true;
        body.reset();
        refusal = new Refusal(reason, reason.equals("graphql_not_allowed") ? plan.credential() : null, detail, AnswerStyle.JSON_MESSAGE,
                null);
    }

    @Override
    public boolean reads() {
        return !decided;
    }

    @Override
    public boolean holdsHead() {
        return true;
    }

    @Override
    public Refusal refusal() {
        return refusal;
    }

    @Override
    public void close() {
        body.reset();
    }
}
