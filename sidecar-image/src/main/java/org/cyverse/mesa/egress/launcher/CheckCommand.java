package org.cyverse.mesa.egress.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.allowlist.Reason;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialSpec;

/**
 * {@code check URL}: the decision the running proxy would make, as one JSON object on stdout,
 * without sending anything. An http URL is decided as a forwarded request (method and path
 * known); an https URL as the CONNECT the client would send, and, where the proxy would intercept
 * it, as the request inside. {@code credential} names the credential that would be injected. IP
 * literals go through the address guard; names are not resolved (the running proxy resolves them
 * once, per request).
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
            return Main.BAD_INPUT;
        }
        URI url;
        Destination destination;
        try {
            url = new URI(args.positional.get(0));
            String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw new Args.UsageException("URL must start with http:// or https://: " + args.positional.get(0));
            }
            if (url.getRawAuthority() == null) {
                throw new Args.UsageException("URL names no host: " + args.positional.get(0));
            }
            String host = hostOf(url.getRawAuthority());
            int port = url.getPort() > 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
            destination = Destination.parse(host, port);
        } catch (URISyntaxException | InvalidDestinationException e) {
            throw new Args.UsageException("bad URL: " + e.getMessage());
        }
        String method = args.flag("--method") == null ? "GET" : args.flag("--method").toUpperCase(Locale.ROOT);
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        boolean tls = url.getScheme().equalsIgnoreCase("https");
        Decision decision = config.policy().decide(tls ? Target.tunnel(destination) : new Target(destination, method, path));
        String mode = tls ? "tunnel" : "forward";
        if (tls && config.intercepts(decision, destination)) {
            // As the proxy would: terminate TLS and decide the request itself.
            mode = "intercept";
            decision = config.policy().decide(new Target(destination, method, path));
        }
        CredentialSpec credential = credentialFor(config, destination, method, path);
        if (credential != null && !tls && !credential.allowPlaintext()) {
            credential = null; // never injected over plain http
        }
        boolean allowed = decision.allowed();
        Reason reason = decision.reason();
        if (allowed && destination.addressBytes() != null) {
            AddressGuard.Verdict verdict = config.addressGuard(List.of()).check(toInet(destination.addressBytes()));
            if (!verdict.permitted()) {
                allowed = false;
                reason = Reason.ADDRESS_NOT_ALLOWED;
            }
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("decision", allowed ? "allow" : "deny");
        json.put("reason", reason.code());
        json.put("rule", decision.rule());
        json.put("mode", mode);
        json.put("credential", allowed && credential != null ? credential.name() : null);
        json.put("profile", config.profile().name());
        json.put("egress", config.egress().name());
        json.put("host", destination.host());
        json.put("port", destination.port());
        try {
            out.println(new ObjectMapper().writeValueAsString(json));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return allowed ? Main.OK : Main.DENY;
    }

    /** The first credential whose scope covers the request, in config order. */
    private static CredentialSpec credentialFor(MesaConfig config, Destination destination, String method, String path) {
        return config.credentials().stream().filter(c -> c.inScope(destination, method, path)).findFirst().orElse(null);
    }

    private static String hostOf(String authority) {
        int at = authority.lastIndexOf('@');
        String hostPort = at >= 0 ? authority.substring(at + 1) : authority;
        if (hostPort.startsWith("[")) {
            return hostPort.substring(1, hostPort.indexOf(']'));
        }
        int colon = hostPort.lastIndexOf(':');
        return colon >= 0 ? hostPort.substring(0, colon) : hostPort;
    }

    private static java.net.InetAddress toInet(byte[] bytes) {
        try {
            return java.net.InetAddress.getByAddress(bytes);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
