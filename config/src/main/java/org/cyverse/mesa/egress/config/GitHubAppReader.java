package org.cyverse.mesa.egress.config;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.config.MapReader.Text;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.github.BranchRule;
import org.cyverse.mesa.egress.injector.github.GitHubAppSpec;

/**
 * Reads a credential's {@code github_app} block (SPEC.md "Additions": {@code github_app: {app_id,
 * private_key, installation_id, repositories, permissions, branch, api_url}}, and the extensions
 * {@code graphql}, {@code graphql_allow}, {@code force_push} and {@code public_read}).
 */
final class GitHubAppReader implements KindReader {

    static final List<String> KEYS = List.of("app_id", "private_key", "installation_id", "repositories", "permissions", "branch",
            "api_url", "graphql",
            "force_push", "public_read", "graphql_allow");
    /** The keys of a credential that a github_app credential has no use for: the proxy mints the token and knows its forms. */
    static final List<String> EXCLUSIVE = List.of("secret", "header", "format", "mint", "body_substitution", "aws_sigv4");
    static final String DEFAULT_API = "https://api.github.com";

    /** GitHub: an owner is 1-39 of [A-Za-z0-9-]; a repository name 1-100 of [A-Za-z0-9._-], not "." or "..". */
    private static final Pattern REPOSITORY = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}");
    /** A numeric App id, or a client id ({@code Iv1.0123456789abcdef}, {@code Iv23li...}). */
    private static final Pattern APP_ID = Pattern.compile("[1-9][0-9]{0,18}|Iv[0-9A-Za-z.]{4,60}");
    private static final Pattern PERMISSION = Pattern.compile("[a-z][a-z_]{1,63}");
    private static final Set<String> LEVELS = Set.of("read", "write", "admin");

    @Override
    public String key() {
        return "github_app";
    }

    @Override
    public boolean defaultsHosts() {
        return true;
    }

    /** Without {@code hosts}: the API's host (and github.com beside api.github.com); without {@code ports} either, the API's port. */
    @Override
    public Read read(MapReader credential, Context context) {
        GitHubAppSpec app = read(credential, context.broker(), context.environment());
        if (app == null) {
            return null;
        }
        int apiPort = app.apiUrl().getPort();
        return new Read(app, null, null, defaultHosts(app.apiUrl()), apiPort < 0 ? null : apiPort);
    }

    /** @return the spec, or {@code null} when a problem was reported */
    static GitHubAppSpec read(MapReader credential, boolean broker, Map<String, String> environment) {
        for (String other : EXCLUSIVE) {
            if (credential.present(other)) {
                credential.problem(other, "a github_app credential's token is minted by the proxy and injected in the forms GitHub"
                        + " reads; remove " + other);
            }
        }
        MapReader g = credential.map("github_app", KEYS);
        if (g == null) {
            return null;
        }
        int before = g.problems().size();
        String appId = appId(g);
        String keyText = g.requiredString("private_key");
        SecretRef key = keyText == null ? null : CredentialReader.secretRef(g, "private_key", keyText, broker);
        long installation = installation(g);
        List<String> repositories = repositories(g, environment);
        Map<String, String> permissions = permissions(g);
        List<String> branches = branches(g, environment);
        URI api = g.present("api_url") ? HttpsUrls.read(g, "api_url", "GitHub's REST API", DEFAULT_API + " (or https://HOST/api/v3)",
                "the App's JWT and its tokens go with every call") : URI.create(DEFAULT_API);
        boolean graphql = g.bool("graphql", true);
        boolean forcePush = g.bool("force_push", false);
        boolean publicRead = g.bool("public_read", false);
        List<String> graphqlAllow = graphqlAllow(g);
        if (g.problems().size() != before || api == null || key == null || appId == null) {
            return null;
        }
        return new GitHubAppSpec(api, appId, key, installation, repositories, permissions, new BranchRule(branches, forcePush), graphql,
                publicRead, graphqlAllow);
    }

    /** The hosts a github_app credential reaches when it names none: the API's host, and github.com beside api.github.com. */
    static List<String> defaultHosts(URI api) {
        List<String> hosts = new ArrayList<>(List.of(api.getHost().toLowerCase(Locale.ROOT)));
        if (hosts.get(0).equals("api.github.com")) {
            hosts.add("github.com");
        }
        return hosts;
    }

    private static String appId(MapReader g) {
        YamlNode raw = g.raw("app_id");
        if (raw == null) {
            g.problem("app_id", "is required: the App's id (a number, on the App's settings page) or its client id (Iv...)");
            return null;
        }
        String text = raw instanceof YamlNode.Scalar s && s.kind() != YamlNode.Kind.NULL ? s.text() : null;
        if (text == null || !APP_ID.matcher(text).matches()) {
            g.problem("app_id", "must be the App's id (a number) or its client id (Iv...), got " + raw.describe());
            return null;
        }
        return text;
    }

    private static long installation(MapReader g) {
        YamlNode raw = g.raw("installation_id");
        Long id = raw == null ? null : MapReader.wholeNumber(raw);
        if (raw == null) {
            g.problem("installation_id", "is required: the installation's id (in https://github.com/settings/installations/ID, or"
                    + " GET /app/installations)");
        } else if (id == null || id <= 0) {
            g.problem("installation_id", "must be a positive whole number, got " + raw.describe());
        }
        return id == null ? 0 : id;
    }

    private static List<String> repositories(MapReader g, Map<String, String> environment) {
        List<Text> texts = g.strings("repositories");
        List<String> out = new ArrayList<>();
        if (!g.present("repositories")) {
            g.problem("repositories", "is required: the job's repositories, as owner/name");
            return out;
        }
        if (texts == null) {
            return out;
        }
        if (texts.isEmpty()) {
            g.problem("repositories", "must name at least one repository (owner/name)");
        }
        Set<String> owners = new LinkedHashSet<>();
        Set<String> seen = new LinkedHashSet<>();
        for (Text t : texts) {
            String r = EnvironmentText.expand(g, t.line(), g.key("repositories"), t.value(), environment);
            if (r == null) {
                continue;
            }
            if (!REPOSITORY.matcher(r).matches() || r.endsWith("/.") || r.endsWith("/..") || r.toLowerCase(Locale.ROOT).endsWith(".git")) {
                g.problems().add(t.line(), g.key("repositories"), "\"" + r + "\" is not owner/name (e.g. cyverse/mesa-sandbox, without"
                        + " .git)");
                continue;
            }
            if (!seen.add(r.toLowerCase(Locale.ROOT))) {
                g.problems().add(t.line(), g.key("repositories"), "\"" + r + "\" is listed twice (GitHub reads names without regard"
                        + " to case)");
            }
            owners.add(r.substring(0, r.indexOf('/')).toLowerCase(Locale.ROOT));
            out.add(r);
        }
        if (owners.size() > 1) {
            g.problem("repositories", "an installation token covers one account's repositories; these name " + owners.size()
                    + " owners (" + String.join(", ", owners) + "): use one github_app credential per installation");
        }
        return out;
    }

    private static Map<String, String> permissions(MapReader g) {
        Map<String, String> out = new LinkedHashMap<>();
        YamlNode raw = g.raw("permissions");
        if (raw == null) {
            out.put("contents", "write");
            out.put("pull_requests", "write");
            out.put("metadata", "read");
            return out;
        }
        if (!(raw instanceof YamlNode.MapNode map) || map.entries().isEmpty()) {
            g.problem("permissions", "expected a map of GitHub permissions to read, write or admin, e.g. {contents: write,"
                    + " pull_requests: write}, got " + raw.describe());
            return out;
        }
        for (YamlNode.Entry e : map.entries()) {
            String level = e.value() instanceof YamlNode.Scalar s && s.kind() != YamlNode.Kind.NULL ? s.text() : "";
            if (!PERMISSION.matcher(e.key()).matches()) {
                g.problems().add(e.keyLine(), g.key("permissions") + "." + e.key(), "is not a GitHub permission name (e.g. contents,"
                        + " pull_requests, issues)");
            } else if (!LEVELS.contains(level)) {
                g.problems().add(e.keyLine(), g.key("permissions") + "." + e.key(), "must be read, write or admin, got "
                        + e.value().describe());
            } else {
                out.put(e.key(), level);
            }
        }
        return out;
    }

    /** {@code graphql_allow}: GraphQL mutation names (GraphQL names: letters, digits, underscores) let go besides the harmless ones. */
    private static List<String> graphqlAllow(MapReader g) {
        List<String> out = new ArrayList<>();
        List<Text> texts = g.strings("graphql_allow");
        if (texts == null) {
            return out;
        }
        for (Text t : texts) {
            if (t.value().matches("[_A-Za-z][_0-9A-Za-z]*")) {
                out.add(t.value());
            } else {
                g.problems().add(t.line(), g.key("graphql_allow"), "\"" + t.value() + "\" is not a GraphQL mutation name");
            }
        }
        return out;
    }

    private static List<String> branches(MapReader g, Map<String, String> environment) {
        List<String> out = new ArrayList<>();
        YamlNode raw = g.raw("branch");
        if (raw == null) {
            g.problem("branch", "is required: the branch the job may push (e.g. agent/job-17, or a pattern such as agent/job-17/*)");
            return out;
        }
        List<Text> texts = raw instanceof YamlNode.Scalar ? List.of(new Text(g.string("branch"), g.lineOf("branch"))) : g.strings("branch");
        if (texts == null) {
            return out;
        }
        for (Text t : texts) {
            String branch = t.value() == null ? null : EnvironmentText.expand(g, t.line(), g.key("branch"), t.value(), environment);
            if (branch == null) {
                continue;
            }
            String problem = BranchRule.problem(branch);
            if (problem != null) {
                g.problems().add(t.line(), g.key("branch"), "\"" + branch + "\": " + problem);
            } else {
                out.add(BranchRule.branchOf(branch));
            }
        }
        if (out.isEmpty() && texts.isEmpty()) {
            g.problem("branch", "must name at least one branch");
        }
        return out;
    }
}
