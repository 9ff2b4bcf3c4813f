package org.cyverse.mesa.egress.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoSettings.AuthMethod;

/** Reads {@code broker.openbao}: where the proxy fetches secrets, and how it logs in there. */
final class BrokerReader {

    static final List<String> BROKER_KEYS = List.of("openbao");
    static final List<String> OPENBAO_KEYS = List.of("address", "namespace", "ca_cert", "auth", "kv_refresh");
    static final List<String> AUTH_KEYS = List.of("method", "mount", "role", "jwt_file", "token_file", "wrapped_token_file");

    /** The projected ServiceAccount token a Kubernetes pod gets by default. */
    static final String SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

    /** Which file-and-role fields each auth method reads; the others must stay unset. */
    private static final Map<String, List<String>> FIELDS = Map.of(
            "kubernetes", List.of("role", "jwt_file"),
            "jwt", List.of("role", "jwt_file"),
            "token", List.of("token_file"),
            "wrapped", List.of("wrapped_token_file"));

    private BrokerReader() {}

    /**
     * @param env the OpenBao CLI variables; they fill in address, namespace and ca_cert where the
     *     file leaves them out (or empty)
     * @return {@code null} when the config has no broker (or it is invalid, which is reported)
     */
    static MesaConfig.Broker read(MapReader root, Path base, BrokerEnvironment env) {
        MapReader broker = root.map("broker", BROKER_KEYS);
        if (broker == null) {
            return null;
        }
        MapReader openbao = broker.map("openbao", OPENBAO_KEYS);
        if (openbao == null) {
            if (!broker.present("openbao")) {
                broker.problem("openbao", "is required under broker (OpenBao is the only broker)");
            }
            return null;
        }
        String address;
        if (!openbao.present("address") && env.address() != null) {
            address = address(openbao, env.address(), " (from " + env.addressVar() + ")");
        } else {
            address = openbao.requiredString("address");
            address = address == null ? null : address(openbao, address, "");
        }
        String namespace = openbao.optionalString("namespace");
        if (namespace == null && !openbao.present("namespace")) {
            namespace = env.namespace();
        }
        Path caCert = openbao.path("ca_cert", base);
        if (caCert == null && !openbao.present("ca_cert") && env.caCert() != null) {
            // An environment path means what it means to the CLI: relative to the working directory.
            caCert = Path.of(env.caCert()).toAbsolutePath().normalize();
        }
        MesaConfig.Broker.Auth auth = auth(openbao, base);
        // As OpenBao Agent's static-secret interval: KV v2 values carry no lease to renew.
        Duration kvRefresh = openbao.duration("kv_refresh", MesaConfig.Broker.DEFAULT_KV_REFRESH);
        if (address == null || auth == null) {
            return null;
        }
        return new MesaConfig.Broker(address, namespace == null ? "" : namespace, caCert, auth, kvRefresh);
    }

    /**
     * A config without a {@code broker} section whose credentials read {@code openbao:} secrets,
     * with {@code BAO_ADDR} (or {@code VAULT_ADDR}) set, gets the broker at that address with
     * method kubernetes, except that the role can only come from the file: this checks the
     * address and reports the missing role, naming where the rest came from.
     *
     * @param line where to report (the credentials that need the broker)
     */
    static void checkFromEnvironment(MapReader root, BrokerEnvironment env, int line) {
        MapReader openbao = MapReader.absent("broker.openbao", line, root.problems());
        address(openbao, env.address(), " (from " + env.addressVar() + ")");
        root.problems().add(line, "broker.openbao.auth.role", "is required for method kubernetes: the broker address comes from "
                + env.addressVar() + " and the method defaults to kubernetes, but the role can only be set in the file"
                + " (broker: {openbao: {auth: {method: kubernetes, role: ...}}})");
    }

    private static String address(MapReader openbao, String address, String origin) {
        try {
            URI uri = new URI(address);
            String scheme = uri.getScheme();
            if (scheme == null || !(scheme.equals("https") || scheme.equals("http")) || uri.getHost() == null) {
                openbao.problem("address", "must be an http(s) URL such as https://openbao.openbao.svc:8200, got \"" + address + "\"" + origin);
                return null;
            }
            if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                openbao.problem("address", "must be scheme://host:port without user, query or fragment, got \"" + address + "\"" + origin);
                return null;
            }
        } catch (URISyntaxException e) {
            openbao.problem("address", "is not a URL" + origin + ": " + e.getMessage());
            return null;
        }
        return address;
    }

    private static MesaConfig.Broker.Auth auth(MapReader openbao, Path base) {
        MapReader auth = openbao.map("auth", AUTH_KEYS);
        if (auth == null) {
            if (!openbao.present("auth")) {
                openbao.problem("auth", "is required: method kubernetes, jwt, token or wrapped, with its fields");
            }
            return null;
        }
        String method = auth.requiredString("method");
        if (method == null) {
            return null;
        }
        List<String> fields = FIELDS.get(method);
        if (fields == null) {
            auth.problem("method", "must be kubernetes, jwt, token or wrapped, got \"" + method + "\"");
            return null;
        }
        int before = auth.problems().size();
        for (String field : AUTH_KEYS.subList(2, AUTH_KEYS.size())) {
            if (!fields.contains(field) && auth.optionalString(field) != null) {
                // Likely a leftover from another method; the proxy would ignore it, and the
                // operator would believe it was used.
                auth.problem(field, "is not used by method " + method + " (it reads " + String.join(", ", fields) + ")");
            }
        }
        String mount = auth.optionalString("mount");
        String role = fields.contains("role") ? required(auth, "role", method) : null;
        Path jwtFile = null;
        if (method.equals("kubernetes")) {
            Path given = auth.path("jwt_file", base);
            jwtFile = given != null ? given : Path.of(SERVICE_ACCOUNT_TOKEN);
        } else if (method.equals("jwt")) {
            jwtFile = requiredPath(auth, "jwt_file", method, base);
        }
        Path tokenFile = method.equals("token") ? requiredPath(auth, "token_file", method, base) : null;
        Path wrappedFile = method.equals("wrapped") ? requiredPath(auth, "wrapped_token_file", method, base) : null;
        if (auth.problems().size() != before) {
            return null;
        }
        return new MesaConfig.Broker.Auth(AuthMethod.of(method), mount == null ? method : mount, role, jwtFile, tokenFile, wrappedFile);
    }

    private static String required(MapReader auth, String field, String method) {
        String value = auth.string(field);
        if (value == null && auth.present(field)) {
            return null; // a wrong type, already reported
        }
        if (value == null || value.isBlank()) {
            auth.problem(field, "is required for method " + method);
            return null;
        }
        return value;
    }

    private static Path requiredPath(MapReader auth, String field, String method, Path base) {
        return required(auth, field, method) == null ? null : auth.path(field, base);
    }
}
