package org.cyverse.mesa.egress.launcher;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.admission.Admission;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.RequestFacts;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.config.InterceptMode;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialSteps;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.Injector;
import org.cyverse.mesa.egress.injector.SecretValues;
import org.cyverse.mesa.egress.proxy.server.ProxyServer;

/**
 * {@code check URL}: the verdict the running proxy's {@link Admission} gives, as one JSON object
 * on stdout, without sending anything. An http URL is decided as a plain proxy request; an https
 * URL as the CONNECT a client would send, and, where the proxy would intercept it, as the request
 * inside. User information in the URL is sent as Basic credentials, as curl and git send it.
 *
 * <p>Where it differs from the running proxy, by design: names are not resolved (IP literals do
 * go through the address guard, with this host's own addresses refused as the proxy refuses its
 * own), no secret is fetched (every credential is taken to have a value, so {@code secret_leak}
 * and {@code credential_unavailable} never come of it), and the request carries only Host and the
 * URL's Basic credentials, so a sentinel the agent would send in another header is not seen.
 */
final class CheckCommand {

    private CheckCommand() {}

    static final Set<String> FLAGS = Set.of("--config", "--profile", "--method", "--listen", "--admin");

    static int run(List<String> rest, PrintStream out, PrintStream err, Map<String, String> env) throws Args.UsageException {
        Args args = EnvironmentFlags.fill(Args.parse(rest, FLAGS), FLAGS, env);
        if (args.positional.size() != 1) {
            throw new Args.UsageException("takes exactly one URL, e.g. check https://api.github.com/repos");
        }
        MesaConfig config = new ConfigArgs(args).load(err);
        if (config == null) {
            return Exit.BAD_INPUT;
        }
        String method = args.flag("--method") == null ? "GET" : args.flag("--method");
        if (!method.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+") || !method.equals(method.toUpperCase(Locale.ROOT))) {
            // Methods are case-sensitive tokens (RFC 9110 section 9.1): "get" is not GET, to a server or to the policy.
            throw new Args.UsageException("--method " + method + " is not a method as a client sends it; write it in capitals, e.g. "
                    + method.toUpperCase(Locale.ROOT));
        }
        Verdict verdict = verdict(config, method, args.positional.get(0));
        if (verdict.reason() == Reason.BAD_REQUEST) {
            throw new Args.UsageException("bad URL: " + verdict.refusal().error());
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("decision", verdict.allowed() ? "allow" : "deny");
        json.put("reason", verdict.reason().code());
        json.put("rule", verdict.rule());
        json.put("mode", verdict.mode().label());
        json.put("credential", verdict.credential());
        List<Map<String, Object>> applied = new ArrayList<>();
        for (Injection.Applied a : verdict.applied()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", a.credential());
            entry.put("actions", a.actions());
            config.credentials().stream().filter(c -> c.name().equals(a.credential())).findFirst().ifPresent(spec -> {
                entry.put("source", spec.source());
                entry.put("limits", spec.limits().describe());
            });
            applied.add(entry);
        }
        for (var spec : config.credentials()) {
            List<String> kindActions = spec.kind() == null ? List.of() : spec.kind().checkActions(spec);
            if (!kindActions.isEmpty() && verdict.destination() != null && spec.covers(verdict.destination())
                    && verdict.applied().stream().noneMatch(a -> a.credential().equals(spec.name()))) {
                // A URL carries no signature: say what the proxy does with the requests a client signs (aws_sigv4).
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("name", spec.name());
                entry.put("actions", kindActions);
                entry.put("source", spec.source());
                entry.put("limits", spec.limits().describe());
                applied.add(entry);
            }
        }
        json.put("credentials", applied);
        json.put("profile", config.profile().name());
        json.put("egress", config.egress().name());
        json.put("host", verdict.host());
        json.put("port", verdict.port());
        if (!verdict.allowed()) {
            json.put("hint", verdict.refusal().hint());
        }
        try {
            out.println(new ObjectMapper().writeValueAsString(json));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return verdict.allowed() ? Exit.OK : Exit.DENY;
    }

    /** The verdict for {@code url} under {@code config}, as the proxy would reach it. */
    static Verdict verdict(MesaConfig config, String method, String url) throws Args.UsageException {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new Args.UsageException("bad URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new Args.UsageException("URL must start with http:// or https://: " + url);
        }
        String authority = uri.getRawAuthority();
        if (authority == null) {
            throw new Args.UsageException("URL names no host: " + url);
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            // As curl and git send it: the user information, percent-decoded, as Basic credentials.
            String userInfo = URLDecoder.decode(authority.substring(0, at).replace("+", "%2B"), StandardCharsets.UTF_8);
            headers.add(Map.entry("Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8))));
            authority = authority.substring(at + 1);
        }
        headers.add(0, Map.entry("Host", authority));
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String pathAndQuery = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
        Admission admission = new Admission(config, config.addressGuard(ProxyServer.hostAddresses()),
                CredentialSteps.of(new Injector(config.credentials(), SecretValues.assumedPresent()), config.credentials(),
                        SecretValues.assumedPresent()),
                config.tls().intercept() != InterceptMode.NONE);
        if (scheme.equals("http")) {
            return admission.decide(RequestFacts.proxyRequest(method, "http://" + authority + pathAndQuery, headers));
        }
        String connectTarget = hasPort(authority) ? authority : authority + ":443";
        Verdict connect = admission.decide(RequestFacts.connect(connectTarget));
        if (!connect.allowed() || connect.mode() != Verdict.Mode.INTERCEPT) {
            return connect;
        }
        return admission.decide(RequestFacts.insideTunnel(connect.destination(), method, pathAndQuery, headers));
    }

    /** Whether {@code authority} ({@code host}, {@code host:port}, {@code [v6]} or {@code [v6]:port}) names a port. */
    private static boolean hasPort(String authority) {
        int close = authority.lastIndexOf(']');
        return authority.indexOf(':', close + 1) >= 0;
    }
}
