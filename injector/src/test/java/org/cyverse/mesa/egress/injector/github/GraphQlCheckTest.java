package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * GitHub GraphQL requests under the branch rule (issue 39: createCommitOnBranch on main, updateRef,
 * updateRefs and mergePullRequest reached the API with the token): one row per document, with
 * its variables, as gh and the GitHub MCP server write them.
 */
class GraphQlCheckTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final BranchRule RULE = new BranchRule(List.of("agent/job-17"));

    static Stream<Arguments> documents() {
        String commit = "mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }";
        return Stream.of(
                Arguments.of("a query", "query { repository(owner: \"acme\", name: \"widgets\") { defaultBranchRef { name } } }", "{}", null),
                Arguments.of("an anonymous query", "{ viewer { login } }", "{}", null),
                Arguments.of("gh pr create", "mutation PullRequestCreate($input: CreatePullRequestInput!) { createPullRequest(input: $input)"
                        + " { pullRequest { url } } }", "{\"input\":{\"repositoryId\":\"R_1\",\"baseRefName\":\"main\",\"headRefName\":"
                        + "\"agent/job-17\",\"title\":\"t\"}}", null),
                Arguments.of("a commit on the job's branch", commit, "{\"input\":{\"branch\":{\"repositoryNameWithOwner\":\"acme/widgets\","
                        + "\"branchName\":\"agent/job-17\"},\"message\":{\"headline\":\"m\"},\"expectedHeadOid\":\"aa\"}}", null),
                Arguments.of("a commit on main", commit, "{\"input\":{\"branch\":{\"repositoryNameWithOwner\":\"acme/widgets\","
                        + "\"branchName\":\"main\"}}}", "createCommitOnBranch on refs/heads/main"),
                Arguments.of("a commit on main, written inline", "mutation { createCommitOnBranch(input: {branch: {repositoryNameWithOwner:"
                        + " \"acme/widgets\", branchName: \"main\"}, message: {headline: \"m\"}, expectedHeadOid: \"aa\"}) { commit { oid } } }",
                        "{}", "createCommitOnBranch on refs/heads/main"),
                Arguments.of("a commit on another repository", commit, "{\"input\":{\"branch\":{\"repositoryNameWithOwner\":\"acme/other\","
                        + "\"branchName\":\"agent/job-17\"}}}", "not one of the job's repositories"),
                Arguments.of("a commit on a branch named by id", commit, "{\"input\":{\"branch\":{\"id\":\"REF_1\"}}}", "by node id"),
                Arguments.of("the variable's default", "mutation($input: CreateCommitOnBranchInput = {branch: {repositoryNameWithOwner:"
                        + " \"acme/widgets\", branchName: \"main\"}}) { createCommitOnBranch(input: $input) { commit { oid } } }", "{}",
                        "on refs/heads/main"),
                Arguments.of("updateRef", "mutation { updateRef(input: {refId: \"REF_1\", oid: \"aa\"}) { ref { name } } }", "{}",
                        "updateRef names its ref by node id"),
                Arguments.of("updateRefs of main", "mutation($u: [RefUpdate!]!) { updateRefs(input: {repositoryId: \"R_1\", refUpdates: $u})"
                        + " { clientMutationId } }", "{\"u\":[{\"name\":\"refs/heads/main\",\"afterOid\":\"aa\"}]}", "on refs/heads/main"),
                Arguments.of("updateRefs of the job's branch", "mutation($u: [RefUpdate!]!) { updateRefs(input: {repositoryId: \"R_1\","
                        + " refUpdates: $u}) { clientMutationId } }", "{\"u\":[{\"name\":\"refs/heads/agent/job-17\",\"afterOid\":\"aa\"}]}",
                        null),
                Arguments.of("updateRefs forcing the job's branch", "mutation { updateRefs(input: {repositoryId: \"R_1\", refUpdates:"
                        + " [{name: \"refs/heads/agent/job-17\", afterOid: \"aa\", force: true}]}) { clientMutationId } }", "{}", "forces"),
                Arguments.of("createRef of a tag", "mutation { createRef(input: {repositoryId: \"R_1\", name: \"refs/tags/v9\", oid: \"aa\"})"
                        + " { ref { name } } }", "{}", "tags are not pushed"),
                Arguments.of("createRef of the job's branch", "mutation { createRef(input: {repositoryId: \"R_1\", name:"
                        + " \"refs/heads/agent/job-17\", oid: \"aa\"}) { ref { name } } }", "{}", null),
                Arguments.of("mergePullRequest", "mutation { mergePullRequest(input: {pullRequestId: \"PR_1\"}) { pullRequest { merged } } }",
                        "{}", "merges a pull request into its base branch"),
                Arguments.of("mergeBranch into main", "mutation { mergeBranch(input: {repositoryId: \"R_1\", base: \"main\", head:"
                        + " \"agent/job-17\"}) { mergeCommit { oid } } }", "{}", "on refs/heads/main"),
                Arguments.of("an aliased mutation inside a fragment", "mutation { ...F } fragment F on Mutation { x: deleteRef(input:"
                        + " {refId: \"REF_1\"}) { clientMutationId } }", "{}", "deleteRef deletes a ref"),
                Arguments.of("an inline fragment", "mutation { ... on Mutation { enablePullRequestAutoMerge(input: {pullRequestId: \"P\"})"
                        + " { clientMutationId } } }", "{}", "enablePullRequestAutoMerge"),
                Arguments.of("a harmless and a refused one", "mutation { addComment(input: {subjectId: \"I\", body: \"b\"}) { clientMutationId }"
                        + " updateRef(input: {refId: \"R\", oid: \"aa\"}) { clientMutationId } }", "{}", "updateRef"),
                Arguments.of("an unknown mutation", "mutation { updateRepository(input: {repositoryId: \"R_1\", name: \"x\"}) {"
                        + " clientMutationId } }", "{}", "updateRepository is not one the proxy knows"),
                Arguments.of("a second operation that is a mutation", "query Q { viewer { login } } mutation M { deleteRef(input: {refId:"
                        + " \"R\"}) { clientMutationId } }", "{}", "deleteRef"),
                Arguments.of("a subscription", "subscription { x }", "{}", "subscriptions"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void eachDocument(String name, String query, String variables, String refused) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("query", query);
        body.set("variables", JSON.readTree(variables));
        byte[] bytes = JSON.writeValueAsBytes(body);
        for (int chunk : new int[] {7, bytes.length}) {
            GraphQlCheck check = new GraphQlCheck.Plan("github", RULE, List.of("acme/widgets"), Set.of()).start();
            BodyCheck.Status status = BodyCheck.Status.HOLD;
            for (int off = 0; off < bytes.length; off += chunk) {
                int n = Math.min(chunk, bytes.length - off);
                byte[] part = new byte[n];
                System.arraycopy(bytes, off, part, 0, n);
                status = check.inspect(part, off + n >= bytes.length);
                if (off + n < bytes.length) {
                    assertEquals(BodyCheck.Status.HOLD, status, "the head waits for the whole request");
                }
            }
            if (refused == null) {
                assertEquals(BodyCheck.Status.CONTINUE, status, name + ": " + (check.refusal() == null ? "" : check.refusal().detail()));
                assertNull(check.refusal());
            } else {
                assertEquals(BodyCheck.Status.REFUSE, status, name);
                assertEquals("graphql_not_allowed", check.refusal().reason());
                assertTrue(check.refusal().detail().contains(refused), check.refusal().detail());
            }
        }
    }

    @Test
    void theConfigMayAllowAMutationByName() throws Exception {
        byte[] body = JSON.writeValueAsBytes(JSON.createObjectNode().put("query",
                "mutation { updateRepository(input: {repositoryId: \"R_1\", hasWikiEnabled: false}) { clientMutationId } }"));
        GraphQlCheck allowed = new GraphQlCheck.Plan("github", RULE, List.of("acme/widgets"), Set.of("updateRepository")).start();
        assertEquals(BodyCheck.Status.CONTINUE, allowed.inspect(body, true));
    }

    @Test
    void whatCannotBeReadIsRefused() {
        for (String[] c : new String[][] {{"not json", "bad_request"}, {"[{\"query\":\"{ viewer { login } }\"}]", "bad_request"},
            {"{\"query\":\"{ viewer { login } }\",\"query\":\"mutation { deleteRef(input: {refId: \\\"R\\\"}) { clientMutationId } }\"}",
                "bad_request"},
            // The mutation first, a harmless query last: judged by the last alone, a server reading the first would run it.
            {"{\"query\":\"mutation { deleteRef(input: {refId: \\\"R\\\"}) { clientMutationId } }\",\"query\":\"{ viewer { login } }\"}",
                "bad_request"},
            {"{\"query\":\"mutation($i: UpdateRefsInput!) { updateRefs(input: $i) { clientMutationId } }\",\"variables\":{\"i\":"
                + "{\"refUpdates\":[{\"name\":\"refs/heads/agent/job-17\"}]},\"i\":{\"refUpdates\":[{\"name\":\"refs/heads/main\"}]}}}",
                "bad_request"},
            {"{\"query\":\"mutation { updateRef(\"}", "graphql_not_allowed"}}) {
            GraphQlCheck check = new GraphQlCheck.Plan("github", RULE, List.of("acme/widgets"), Set.of()).start();
            assertEquals(BodyCheck.Status.REFUSE, check.inspect(c[0].getBytes(StandardCharsets.UTF_8), true), c[0]);
            assertEquals(c[1], check.refusal().reason(), c[0]);
        }
    }
}
