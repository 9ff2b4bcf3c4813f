package org.cyverse.mesa.egress.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.approval.ApprovalTtl;

/**
 * {@code approvals list|approve ID|deny ID}: the approval inbox for an operator, over the admin
 * port with the admin token ({@code --token-file}: the file {@code admin.token_file} names, read
 * as the proxy reads it, its first token sent). {@code approve} takes {@code --ttl} (required: {@code 1h}, {@code job}) and may
 * narrow with {@code --ports} and {@code --methods}. Exit 0 done, 1 the proxy refused or could not
 * be reached (its answer printed), 2 bad input.
 */
final class ApprovalsCommand {

    static final Set<String> FLAGS = Set.of("--admin", "--token-file", "--ttl", "--ports", "--methods", "--json");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String USAGE = "usage: approvals list|approve ID|deny ID --token-file FILE [--admin HOST:PORT|URL]"
            + " [--ttl 1h|job] [--ports 443,...] [--methods GET,...] [--json true]";

    private ApprovalsCommand() {}

    static int run(List<String> rest, PrintStream out, PrintStream err, Map<String, String> env) throws Args.UsageException {
        Args args = EnvironmentFlags.fill(Args.parse(rest, FLAGS), FLAGS, env);
        if (args.positional.isEmpty()) {
            throw new Args.UsageException(USAGE);
        }
        String action = args.positional.get(0);
        if (args.flag("--token-file") == null) {
            throw new Args.UsageException("--token-file is required: the admin token (admin.token_file)\n" + USAGE);
        }
        String token;
        try {
            token = org.cyverse.mesa.egress.proxy.admin.AdminToken.firstToken(Path.of(args.flag("--token-file")));
        } catch (IOException e) {
            throw new Args.UsageException("--token-file: " + e.getMessage()); // the message names the file, as admin.token_file
        }
        URI admin = admin(args.flag("--admin") == null ? "127.0.0.1:9090" : args.flag("--admin"), err);
        String jsonFlag = args.flag("--json");
        if (jsonFlag != null && !jsonFlag.equals("true") && !jsonFlag.equals("false")) {
            throw new Args.UsageException("--json takes true or false, got " + jsonFlag);
        }
        boolean json = "true".equals(jsonFlag);
        if (args.positional.size() > 1 && !args.positional.get(1).matches("apr_[0-9a-f]{1,64}")) {
            throw new Args.UsageException(args.positional.get(1) + " is not an approval id (apr_..., as approvals list shows)");
        }
        try {
            return switch (action) {
                case "list" -> {
                    expect(args, 1);
                    HttpResponse<String> r = call(admin, "GET", "/approvals", token, null);
                    if (r.statusCode() != 200) {
                        yield refused(err, r);
                    }
                    out.print(json ? r.body() : table(JSON.readTree(r.body())));
                    yield Exit.OK;
                }
                case "approve" -> {
                    expect(args, 2);
                    if (args.flag("--ttl") == null) {
                        throw new Args.UsageException("approve needs --ttl: a duration such as 1h, or job for the rest of the job");
                    }
                    try {
                        ApprovalTtl.parse(args.flag("--ttl"));
                    } catch (IllegalArgumentException e) {
                        throw new Args.UsageException("--" + e.getMessage());
                    }
                    ObjectNode body = JSON.createObjectNode().put("ttl", args.flag("--ttl"));
                    if (args.flag("--ports") != null || args.flag("--methods") != null) {
                        ObjectNode scope = scope(admin, token, args);
                        if (scope == null) {
                            err.println("mesa-egress approvals: no approval " + args.positional.get(1) + " (approvals list shows them)");
                            yield Exit.FAILURE;
                        }
                        body.set("scope", scope);
                    }
                    yield decided(out, err, call(admin, "POST", "/approvals/" + args.positional.get(1) + "/approve", token, body.toString()));
                }
                case "deny" -> {
                    expect(args, 2);
                    yield decided(out, err, call(admin, "POST", "/approvals/" + args.positional.get(1) + "/deny", token, null));
                }
                default -> throw new Args.UsageException("unknown action \"" + action + "\"\n" + USAGE);
            };
        } catch (ConnectException e) {
            err.println("mesa-egress approvals: nothing answers on the admin port " + admin + " (is the proxy running? --admin)");
            return Exit.FAILURE;
        } catch (IOException e) {
            err.println("mesa-egress approvals: " + admin + ": " + e.getMessage());
            return Exit.FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Exit.FAILURE;
        }
    }

    private static void expect(Args args, int n) throws Args.UsageException {
        if (args.positional.size() != n) {
            throw new Args.UsageException(USAGE);
        }
    }

    private static URI admin(String text, PrintStream err) throws Args.UsageException {
        URI uri;
        try {
            uri = URI.create(text.contains("://") ? text : "http://" + text);
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--admin must be HOST:PORT or an http(s) URL of the admin port");
        }
        if (uri.getHost() == null || uri.getPort() < 0 && !text.contains("://") || uri.getRawUserInfo() != null
                || !(uri.getScheme().equals("http") || uri.getScheme().equals("https")) || !(uri.getRawPath() == null
                || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))) {
            throw new Args.UsageException("--admin must be HOST:PORT or an http(s) URL of the admin port, without user or path");
        }
        if (uri.getScheme().equals("http") && !isLoopback(uri.getHost())) {
            err.println("mesa-egress approvals: warning: the admin token goes to " + uri.getHost() + " over plain http");
        }
        return uri.resolve("/");
    }

    private static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]") || host.equals("::1");
    }

    /** The asked scope of the approval, narrowed by --ports and --methods; {@code null} when there is no such approval. */
    private static ObjectNode scope(URI admin, String token, Args args) throws IOException, InterruptedException, Args.UsageException {
        HttpResponse<String> r = call(admin, "GET", "/approvals", token, null);
        JsonNode asked = null;
        if (r.statusCode() == 200) {
            for (JsonNode a : JSON.readTree(r.body()).path("approvals")) {
                if (a.path("id").asText().equals(args.positional.get(1))) {
                    asked = a.path("asked");
                }
            }
        }
        if (asked == null) {
            return null;
        }
        ObjectNode scope = JSON.createObjectNode();
        scope.put("host", asked.path("host").asText());
        ArrayNode ports = scope.putArray("ports");
        if (args.flag("--ports") != null) {
            for (String p : args.flag("--ports").split(",")) {
                try {
                    ports.add(Integer.parseInt(p.strip()));
                } catch (NumberFormatException e) {
                    throw new Args.UsageException("--ports takes port numbers separated by commas, got " + args.flag("--ports"));
                }
            }
        } else {
            asked.path("ports").forEach(ports::add);
        }
        ArrayNode methods = scope.putArray("methods");
        if (args.flag("--methods") != null) {
            for (String m : args.flag("--methods").split(",")) {
                methods.add(m.strip().toUpperCase(Locale.ROOT));
            }
        }
        return scope;
    }

    private static int decided(PrintStream out, PrintStream err, HttpResponse<String> r) throws IOException {
        if (r.statusCode() != 200) {
            return refused(err, r);
        }
        out.println(JSON.readTree(r.body()).path("result").asText());
        return Exit.OK;
    }

    private static int refused(PrintStream err, HttpResponse<String> r) throws IOException {
        JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (IOException e) {
            body = null;
        }
        String message = body == null ? r.body().strip() : body.has("reason")
                ? body.path("reason").asText() + ": " + body.path("error").asText() + " (" + body.path("hint").asText() + ")"
                : body.path("error").asText();
        err.println("mesa-egress approvals: " + r.statusCode() + " " + message);
        return Exit.FAILURE;
    }

    private static String table(JsonNode listing) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%-26s %-13s %-36s %5s  %-24s %s%n",
                "ID", "STATE", "ASKED", "COUNT", "EXPIRES", "DECIDED"));
        for (JsonNode a : listing.path("approvals")) {
            JsonNode asked = a.path("asked");
            String decided = a.path("decided_by").isNull() ? "" : a.path("decided_by").asText() + " "
                    + (a.path("granted").isNull() ? "" : "until " + (a.path("grant_expires").isNull() ? "the job ends" : a.path("grant_expires").asText()));
            s.append(String.format(Locale.ROOT, "%-26s %-13s %-36s %5d  %-24s %s%n", a.path("id").asText(), a.path("state").asText(),
                    asked.path("host").asText() + ":" + asked.path("ports").get(0).asText(), a.path("count").asInt(),
                    a.path("expires").asText(), decided.strip()));
        }
        s.append(listing.path("pending").asInt()).append(" pending\n");
        return s.toString();
    }

    private static HttpResponse<String> call(URI admin, String method, String path, String token, String body)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(admin.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).connectTimeout(Duration.ofSeconds(5)).build()
                .send(request, HttpResponse.BodyHandlers.ofString());
    }
}
