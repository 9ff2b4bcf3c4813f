package org.cyverse.mesa.egress.injector.github;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import graphql.language.Argument;
import graphql.language.ArrayValue;
import graphql.language.BooleanValue;
import graphql.language.Definition;
import graphql.language.Document;
import graphql.language.EnumValue;
import graphql.language.Field;
import graphql.language.FloatValue;
import graphql.language.FragmentDefinition;
import graphql.language.FragmentSpread;
import graphql.language.InlineFragment;
import graphql.language.IntValue;
import graphql.language.ObjectField;
import graphql.language.ObjectValue;
import graphql.language.OperationDefinition;
import graphql.language.Selection;
import graphql.language.StringValue;
import graphql.language.Value;
import graphql.language.VariableDefinition;
import graphql.language.VariableReference;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The branch rule over a GitHub GraphQL document (GitHub's GraphQL reference, "Mutations"):
 * queries go; each mutation field at a mutation's root (through fragments too, whatever its
 * alias) is judged. Those that move refs go when they name the job's branch: {@code
 * createCommitOnBranch} by {@code branch.repositoryNameWithOwner} and {@code branchName},
 * {@code createRef} by {@code name}, {@code updateRefs} by each {@code refUpdates[].name} (and not
 * {@code force} unless {@code force_push}), {@code mergeBranch} by {@code base}. Those that name
 * refs or pull requests by node id only, or merge into a base the job does not own
 * ({@code updateRef}, {@code deleteRef}, {@code mergePullRequest}, {@code enablePullRequestAutoMerge},
 * {@code enqueuePullRequest}, {@code revertPullRequest}, {@code updatePullRequestBranch}) are
 * refused, as their REST counterparts are. {@link #HARMLESS} (pull requests, reviews, comments,
 * issues, labels, reactions) go; any other mutation is refused unless the config allows it by
 * name. Arguments are read as written or from the request's {@code variables} (a variable's
 * default too). Repositories named by node id ({@code repositoryId}) are not resolved: the
 * installation token reaches the job's repositories only, so GitHub refuses any other. Pure.
 */
final class GraphQlMutations {

    /** Mutations that add to pull requests, reviews, issues and comments and move no ref. */
    static final Set<String> HARMLESS = Set.of(
            "createPullRequest", "updatePullRequest", "closePullRequest", "reopenPullRequest", "markPullRequestReadyForReview",
            "convertPullRequestToDraft", "requestReviews", "addPullRequestReview", "addPullRequestReviewComment",
            "addPullRequestReviewThread", "addPullRequestReviewThreadReply", "submitPullRequestReview", "updatePullRequestReview",
            "updatePullRequestReviewComment", "deletePullRequestReview", "deletePullRequestReviewComment", "resolveReviewThread",
            "unresolveReviewThread", "addComment", "updateIssueComment", "deleteIssueComment", "createIssue", "updateIssue", "closeIssue",
            "reopenIssue", "addLabelsToLabelable", "removeLabelsFromLabelable", "clearLabelsFromLabelable", "addAssigneesToAssignable",
            "removeAssigneesFromAssignable", "addReaction", "removeReaction", "minimizeComment", "unminimizeComment", "lockLockable",
            "unlockLockable", "addDiscussionComment", "updateDiscussionComment");

    /** Mutations that move a ref or merge, named by node id only: refused. */
    private static final Map<String, String> REFUSED = Map.of(
            "updateRef", "names its ref by node id (push the job's branch with git, or use updateRefs naming the ref)",
            "deleteRef", "deletes a ref (branches are not deleted from a sandbox)",
            "mergePullRequest", "merges a pull request into its base branch",
            "enablePullRequestAutoMerge", "merges a pull request into its base branch later",
            "enqueuePullRequest", "merges a pull request through a merge queue",
            "revertPullRequest", "creates a revert branch and pull request",
            "updatePullRequestBranch", "updates a pull request's head branch (it may be another's)");

    private final BranchRule rule;
    private final List<String> repositories;
    private final Set<String> allowed;

    /**
     * @param repositories the job's, {@code owner/name}
     * @param allowed mutation names the config lets go besides {@link #HARMLESS}
     */
    GraphQlMutations(BranchRule rule, List<String> repositories, Set<String> allowed) {
        this.rule = rule;
        this.repositories = repositories;
        this.allowed = allowed;
    }

    /** Why {@code document} is refused with {@code variables}, or {@code null} when it may go. */
    String refusal(Document document, JsonNode variables) {
        Map<String, FragmentDefinition> fragments = new HashMap<>();
        for (Definition<?> d : document.getDefinitions()) {
            if (d instanceof FragmentDefinition f) {
                fragments.put(f.getName(), f);
            }
        }
        for (Definition<?> d : document.getDefinitions()) {
            if (d instanceof OperationDefinition op && op.getOperation() == OperationDefinition.Operation.SUBSCRIPTION) {
                return "subscriptions are not GitHub's";
            }
            if (d instanceof OperationDefinition op && op.getOperation() == OperationDefinition.Operation.MUTATION) {
                Map<String, JsonNode> values = values(op, variables);
                String why = fields(op.getSelectionSet().getSelections(), fragments, values, new HashSet<>());
                if (why != null) {
                    return why;
                }
            }
        }
        return null;
    }

    /** The first refusal among the root fields of a mutation's selections, fragments followed once each. */
    private String fields(List<Selection> selections, Map<String, FragmentDefinition> fragments, Map<String, JsonNode> values,
            Set<String> followed) {
        for (Selection<?> s : selections) {
            String why = null;
            if (s instanceof Field f) {
                why = f.getName().equals("__typename") ? null : field(f, values);
            } else if (s instanceof InlineFragment i) {
                why = fields(i.getSelectionSet().getSelections(), fragments, values, followed);
            } else if (s instanceof FragmentSpread spread) {
                FragmentDefinition f = fragments.get(spread.getName());
                why = f == null ? "fragment " + spread.getName() + " is not defined"
                        : followed.add(f.getName()) ? fields(f.getSelectionSet().getSelections(), fragments, values, followed) : null;
            }
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    private String field(Field f, Map<String, JsonNode> values) {
        String name = f.getName();
        if (HARMLESS.contains(name) || allowed.contains(name)) {
            return null;
        }
        if (REFUSED.containsKey(name)) {
            return name + " " + REFUSED.get(name);
        }
        JsonNode input = argument(f, "input", values);
        String why = switch (name) {
            case "createCommitOnBranch" -> commitOnBranch(input.path("branch"));
            case "createRef" -> branch(input.path("name").asText(null));
            case "updateRefs" -> refUpdates(input.path("refUpdates"));
            case "mergeBranch" -> input.path("base").isTextual() ? branch("refs/heads/" + input.path("base").asText())
                    : "names no base branch";
            default -> "is not one the proxy knows to leave refs alone (the config may allow it by name: graphql_allow)";
        };
        return why == null ? null : name + " " + why;
    }

    private String commitOnBranch(JsonNode branch) {
        String repository = branch.path("repositoryNameWithOwner").asText(null);
        String name = branch.path("branchName").asText(null);
        if (repository == null || name == null) {
            return "names its branch by node id (name repositoryNameWithOwner and branchName)";
        }
        if (repositories.stream().noneMatch(r -> GitHubRoute.key(r).equals(GitHubRoute.key(repository)))) {
            return "writes " + repository + ", not one of the job's repositories";
        }
        return branch("refs/heads/" + name);
    }

    private String refUpdates(JsonNode updates) {
        if (!updates.isArray() || updates.isEmpty()) {
            return "names no ref";
        }
        for (JsonNode u : updates) {
            if (u.path("force").asBoolean(false) && !rule.forcePush()) {
                return "forces " + u.path("name").asText() + " (force pushes are refused: force_push is false)";
            }
            String why = branch(u.path("name").asText(null));
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    private String branch(String ref) {
        if (ref == null) {
            return "names no ref";
        }
        String why = rule.refusal(ref);
        return why == null ? null : "on " + ref + ": " + why;
    }

    /** The value of argument {@code name} (variables resolved), or a missing node. */
    private static JsonNode argument(Field f, String name, Map<String, JsonNode> values) {
        for (Argument a : f.getArguments()) {
            if (a.getName().equals(name)) {
                return json(a.getValue(), values);
            }
        }
        return JsonNodeFactory.instance.missingNode();
    }

    /** The operation's variables: the request's, else each definition's default. */
    private static Map<String, JsonNode> values(OperationDefinition op, JsonNode variables) {
        Map<String, JsonNode> out = new HashMap<>();
        for (VariableDefinition v : op.getVariableDefinitions()) {
            JsonNode given = variables == null ? null : variables.get(v.getName());
            out.put(v.getName(), given != null ? given : v.getDefaultValue() == null ? JsonNodeFactory.instance.nullNode()
                    : json(v.getDefaultValue(), Map.of()));
        }
        return out;
    }

    /** A GraphQL value as JSON, variables replaced. */
    private static JsonNode json(Value<?> value, Map<String, JsonNode> values) {
        JsonNodeFactory n = JsonNodeFactory.instance;
        if (value instanceof VariableReference v) {
            return values.getOrDefault(v.getName(), n.nullNode());
        } else if (value instanceof ObjectValue o) {
            ObjectNode out = n.objectNode();
            for (ObjectField f : o.getObjectFields()) {
                out.set(f.getName(), json(f.getValue(), values));
            }
            return out;
        } else if (value instanceof ArrayValue a) {
            ArrayNode out = n.arrayNode();
            a.getValues().forEach(v -> out.add(json(v, values)));
            return out;
        } else if (value instanceof StringValue s) {
            return n.textNode(s.getValue());
        } else if (value instanceof BooleanValue b) {
            return n.booleanNode(b.isValue());
        } else if (value instanceof EnumValue e) {
            return n.textNode(e.getName());
        } else if (value instanceof IntValue i) {
            return n.numberNode(i.getValue());
        } else if (value instanceof FloatValue f) {
            return n.numberNode(f.getValue());
        }
        return n.nullNode();
    }
}
