package org.cyverse.mesa.egress.injector.github;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.PercentText;

/**
 * What a request to a {@code github_app} credential's hosts is, read from its destination and
 * path: a REST call (naming a repository, or one of the repository-free reads), a GraphQL call,
 * a git smart-HTTP call (fetch or push, for a repository), or anything else. Path segments are
 * percent-decoded before they are compared, and a segment that decodes to a {@code /} or a dot
 * segment makes the path unreadable: a name the rule reads one way must not reach GitHub as
 * another.
 *
 * @param kind what the request is
 * @param repository {@code owner/name} as the path spelled it ({@code .git} removed), or {@code null}
 * @param rest the REST path after {@code /repos/{owner}/{repo}} (e.g. {@code /git/refs/heads/main}), the Git LFS path
 *     after {@code info/lfs} ({@code /objects/batch}), or {@code null}
 */
public record GitHubRoute(Kind kind, String repository, String rest) {

    public enum Kind {
        /** {@code /repos/{owner}/{repo}...} on the API host. */
        REST_REPOSITORY,
        /** A repository-free read the agent's tools need ({@code /rate_limit}, {@code /meta}, ...). */
        REST_FREE,
        /** Any other REST path: refused. */
        REST_OTHER,
        /** {@code POST /graphql}. */
        GRAPHQL,
        /** {@code info/refs?service=git-upload-pack} or {@code POST git-upload-pack}: a clone or fetch. */
        GIT_FETCH,
        /** {@code info/refs?service=git-receive-pack}: the refs a push starts from. */
        GIT_PUSH_REFS,
        /** {@code POST git-receive-pack}: the push itself. */
        GIT_PUSH,
        /**
         * Git LFS on the git host ({@code /{owner}/{repo}[.git]/info/lfs/...}: the batch API and
         * the locks API, git-lfs's {@code docs/api}); {@code rest} is the path after {@code info/lfs}.
         */
        GIT_LFS,
        /** Not the API and not git smart HTTP (web pages, archives, releases on github.com): nothing is injected. */
        OTHER,
        /** A path whose segments cannot be read unambiguously. */
        UNREADABLE
    }

    /** GET paths that name no repository and that {@code gh} and agents use. */
    private static final Set<String> FREE_READS = Set.of("", "/", "/rate_limit", "/meta", "/zen", "/octocat", "/emojis", "/versions",
            "/user", "/installation/repositories", "/licenses", "/gitignore/templates", "/codes_of_conduct", "/feeds");
    private static final List<Pattern> FREE_READ_PATTERNS = List.of(Pattern.compile("/search/(code|commits|issues|repositories|topics"
            + "|labels)"), Pattern.compile("/users/[^/]+"), Pattern.compile("/licenses/[^/]+"), Pattern.compile("/gitignore/templates/[^/]+"));

    /**
     * @param apiUrl the credential's {@code api_url}: requests to its host and port, under its path, are the API
     */
    public static GitHubRoute of(URI apiUrl, Destination destination, String method, String rawPath, String query) {
        List<String> segments = segments(rawPath);
        if (segments == null) {
            return new GitHubRoute(Kind.UNREADABLE, null, null);
        }
        int apiPort = apiUrl.getPort() < 0 ? 443 : apiUrl.getPort();
        boolean apiHost = apiUrl.getHost().equalsIgnoreCase(destination.host()) && apiPort == destination.port();
        List<String> prefix = segments(apiUrl.getRawPath() == null ? "" : apiUrl.getRawPath());
        if (apiHost && prefix != null && startsWith(segments, prefix)) {
            return api(segments.subList(prefix.size(), segments.size()), method);
        }
        if (apiHost && prefix != null && !prefix.isEmpty() && prefix.get(prefix.size() - 1).equals("v3")
                && segments.equals(append(prefix.subList(0, prefix.size() - 1), "graphql"))) {
            return new GitHubRoute(Kind.GRAPHQL, null, null); // GitHub Enterprise Server: /api/v3 and /api/graphql
        }
        return git(segments, method, query);
    }

    private static GitHubRoute api(List<String> path, String method) {
        boolean read = method.equals("GET") || method.equals("HEAD");
        if (path.size() == 1 && path.get(0).equals("graphql")) {
            return new GitHubRoute(Kind.GRAPHQL, null, null);
        }
        if (path.size() >= 3 && path.get(0).equals("repos")) {
            return new GitHubRoute(Kind.REST_REPOSITORY, path.get(1) + "/" + path.get(2), "/" + String.join("/", path.subList(3,
                    path.size())));
        }
        String joined = path.isEmpty() ? "" : "/" + String.join("/", path);
        boolean free = read && (FREE_READS.contains(joined) || FREE_READ_PATTERNS.stream().anyMatch(p -> p.matcher(joined).matches()))
                || method.equals("POST") && joined.equals("/markdown");
        return new GitHubRoute(free ? Kind.REST_FREE : Kind.REST_OTHER, null, joined);
    }

    /** git smart HTTP (http-protocol.txt): {@code /{owner}/{repo}[.git]/info/refs?service=...}, {@code .../git-upload-pack}, {@code .../git-receive-pack}. */
    private static GitHubRoute git(List<String> path, String method, String query) {
        if (path.size() < 3) {
            return new GitHubRoute(Kind.OTHER, null, null);
        }
        String repository = path.get(0) + "/" + stripGit(path.get(1));
        List<String> tail = path.subList(2, path.size());
        if (tail.equals(List.of("info", "refs"))) {
            String service = service(query);
            if (service == null || service.equals("git-upload-pack")) {
                return new GitHubRoute(Kind.GIT_FETCH, repository, null); // no service: the dumb protocol's read
            }
            return new GitHubRoute(service.equals("git-receive-pack") ? Kind.GIT_PUSH_REFS : Kind.UNREADABLE, repository, null);
        }
        if (tail.size() >= 2 && tail.get(0).equals("info") && tail.get(1).equals("lfs")) {
            return new GitHubRoute(Kind.GIT_LFS, repository, "/" + String.join("/", tail.subList(2, tail.size())));
        }
        if (tail.size() == 1 && tail.get(0).equals("git-upload-pack")) {
            return new GitHubRoute(Kind.GIT_FETCH, repository, null);
        }
        if (tail.size() == 1 && tail.get(0).equals("git-receive-pack")) {
            return new GitHubRoute(method.equals("POST") ? Kind.GIT_PUSH : Kind.UNREADABLE, repository, null);
        }
        return new GitHubRoute(Kind.OTHER, null, null);
    }

    private static String service(String query) {
        if (query == null) {
            return null;
        }
        String found = null;
        for (String param : query.split("&")) {
            if (param.startsWith("service=")) {
                String value = PercentText.decode(param.substring(8));
                if (found != null && !found.equals(value)) {
                    return "ambiguous"; // two services named: the upstream may read either
                }
                found = value;
            }
        }
        return found;
    }

    private static String stripGit(String name) {
        return name.regionMatches(true, Math.max(0, name.length() - 4), ".git", 0, 4) && name.length() > 4
                ? name.substring(0, name.length() - 4) : name;
    }

    /** The decoded segments of {@code rawPath}, empty ones dropped, or {@code null} when one is ambiguous. */
    static List<String> segments(String rawPath) {
        List<String> out = new ArrayList<>();
        for (String raw : rawPath.split("/", -1)) {
            if (raw.isEmpty()) {
                continue;
            }
            String s = PercentText.decode(raw);
            if (s.equals(".") || s.equals("..") || s.contains("/") || s.contains("\\") || s.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                return null;
            }
            out.add(s);
        }
        return out;
    }

    private static boolean startsWith(List<String> path, List<String> prefix) {
        return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
    }

    private static List<String> append(List<String> list, String s) {
        List<String> out = new ArrayList<>(list);
        out.add(s);
        return out;
    }

    /** {@code repository} as GitHub compares names: without regard to case. */
    public static String key(String repository) {
        return repository.toLowerCase(Locale.ROOT);
    }
}
