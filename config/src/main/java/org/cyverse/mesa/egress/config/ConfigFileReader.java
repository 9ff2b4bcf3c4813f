package org.cyverse.mesa.egress.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.Policy;
import org.cyverse.mesa.egress.allowlist.Profile;
import org.cyverse.mesa.egress.allowlist.Rule;
import org.cyverse.mesa.egress.injector.CredentialSpec;

/**
 * Reads the top level of one config file (or, without a file, the defaults) into a
 * {@link MesaConfig}, section by section, applying already parsed command-line flags.
 */
final class ConfigFileReader {

    static final List<String> KEYS = List.of("version", "profile", "egress", "listen", "admin", "allow", "deny",
            "network", "tls", "credentials", "broker", "audit", "limits", "dlp", "approvals");

    static final String DEFAULT_PROFILE = "P1";
    static final HostAndPort DEFAULT_LISTEN = new HostAndPort("127.0.0.1", 3128);
    static final HostAndPort DEFAULT_ADMIN = new HostAndPort("127.0.0.1", 9090);

    /**
     * Parsed flags; each {@code null} when not given or invalid.
     *
     * @param profileInvalid whether {@code --profile} was given but invalid: then neither the
     *     class nor the credentials can be judged, and guessing a profile would report problems
     *     that are not there
     */
    record Flags(Profile profile, HostAndPort listen, HostAndPort admin, boolean profileInvalid) {}

    private final ProfileCatalog catalog;
    private final MapReader root;
    private final Path base;
    private final Path source;
    private final Flags flags;
    private final List<ConfigProblem> flagProblems;
    private final BrokerEnvironment brokerEnv;
    private final Map<String, String> environment;

    /**
     * @param base the directory relative paths resolve against
     * @param flagProblems where problems caused by a flag go
     * @param brokerEnv OpenBao CLI variables that fill in what {@code broker.openbao} leaves out
     * @param environment what {@code ${VAR}} in a {@code mint} block's metadata expands from
     */
    ConfigFileReader(ProfileCatalog catalog, MapReader root, Path base, Path source, Flags flags, List<ConfigProblem> flagProblems,
            BrokerEnvironment brokerEnv, Map<String, String> environment) {
        this.environment = environment == null ? Map.of() : environment;
        this.catalog = catalog;
        this.root = root;
        this.base = base;
        this.source = source;
        this.flags = flags;
        this.flagProblems = flagProblems;
        this.brokerEnv = brokerEnv;
    }

    /** @return the config, or {@code null} when a problem was reported */
    MesaConfig read() {
        int before = root.problems().size();
        if (source != null) {
            version();
        }
        Profile profile = profile();
        EgressClass egress = profile == null ? null : egress(profile);
        HostAndPort listen = address("listen", root.lineOf("listen"), root.string("listen"), flags.listen(), DEFAULT_LISTEN);
        AdminReader.Result adminSection = AdminReader.read(root, base);
        HostAndPort admin = address(adminSection.listenKey(), adminSection.listenLine(), adminSection.listen(), flags.admin(), DEFAULT_ADMIN);
        if (listen != null && admin != null && listen.equals(admin) && listen.port() != 0) {
            if (flags.admin() != null) {
                flagProblems.add(new ConfigProblem(ConfigLoader.COMMAND_LINE, 0, "--admin", "is the same address as listen (" + listen + ")"));
            } else if (flags.listen() != null) {
                flagProblems.add(new ConfigProblem(ConfigLoader.COMMAND_LINE, 0, "--listen", "is the same address as admin (" + admin + ")"));
            } else {
                root.problems().add(adminSection.listenLine(), adminSection.listenKey(), "is the same address as listen (" + listen + ")");
            }
        }
        if (admin != null && adminSection.control().tokenFile() == null && !loopback(admin.host())) {
            // Beyond loopback the admin port is reachable by whatever reaches the pod; its calls then need the token.
            String problem = "listens on " + admin.host() + ", beyond loopback, without admin.token_file: set admin.token_file"
                    + " (every state-changing call and the approval inbox then need it), or listen on 127.0.0.1";
            if (flags.admin() != null) {
                flagProblems.add(new ConfigProblem(ConfigLoader.COMMAND_LINE, 0, "--admin", problem));
            } else {
                root.problems().add(adminSection.listenLine(), adminSection.listenKey(), problem);
            }
        }
        RuleReader.Result allow = RuleReader.read(root, "allow", ScopeReader.WEB_PORTS);
        // A deny entry without ports removes the host on every port: a narrower default would
        // let an allow entry for another port through.
        RuleReader.Result deny = RuleReader.read(root, "deny", Set.of());
        if (egress != null && letsNothingLeave(egress) && allow.entries() > 0) {
            root.problem("allow", "egress class " + egress.name() + " (" + egress.title() + ") lets nothing leave, so allow entries are not permitted"
                    + otherClasses(profile, egress));
        }
        MesaConfig.Network network = SettingsReader.network(root);
        MesaConfig.Tls tls = SettingsReader.tls(root, base);
        MesaConfig.Broker broker = BrokerReader.read(root, base, brokerEnv);
        // With BAO_ADDR set, openbao: secrets do not need a broker section for their own sake;
        // the broker that the environment implies is then checked (and its role reported) below.
        boolean brokerFromEnv = !root.present("broker") && brokerEnv.address() != null;
        List<CredentialReader.Entry> credentials = CredentialReader.read(root, root.present("broker") || brokerFromEnv, environment);
        if (brokerFromEnv && credentials.stream().anyMatch(e -> e.spec().needs().stream().anyMatch(r -> r.scheme().equals("openbao")))) {
            BrokerReader.checkFromEnvironment(root, brokerEnv, root.lineOf("credentials"));
        }
        if (tls != null && tls.intercept() == InterceptMode.NONE) {
            // Credentials are injected only into requests the proxy can read: with no interception
            // that is plain http, which a credential must opt in to.
            for (CredentialReader.Entry entry : credentials) {
                if (!entry.spec().allowPlaintext()) {
                    int line = entry.hosts().isEmpty() ? root.lineOf("credentials") : entry.hosts().get(0).line();
                    root.problems().add(line, entry.key(), "tls.intercept is none, so credential " + entry.spec().name()
                            + " could never be injected over HTTPS; use tls.intercept auto (or all), or set allow_plaintext: true");
                }
            }
        }
        MesaConfig.Audit audit = SettingsReader.audit(root, base);
        MesaConfig.Limits limits = SettingsReader.limits(root);
        MesaConfig.Dlp dlp = DlpReader.dlp(root);
        MesaConfig.Approvals approvals = ApprovalsReader.read(root, base, profile, adminSection.control(), root.present("broker") || brokerFromEnv);

        Policy policy = null;
        if (egress != null && allow.complete() && deny.complete()) {
            List<Rule> allowList = new ArrayList<>(egress.rules());
            allowList.addAll(allow.rules());
            try {
                policy = new Policy(profile.name(), deny.rules(), allowList);
            } catch (IllegalArgumentException e) {
                root.problem("allow", e.getMessage());
            }
            if (policy != null) {
                String context = "profile " + profile.name() + ", egress class " + egress.name() + " (" + egress.title() + ")";
                String hint = letsNothingLeave(egress) ? "nothing leaves under " + egress.name() + ", so remove the credential"
                        : "add an allow entry for it, or remove it from the credential";
                for (CredentialReader.Entry entry : credentials) {
                    CredentialScope.check(entry, egress, allowList, policy, context, hint, root.problems());
                }
            }
        }
        if (root.problems().size() != before || !flagProblems.isEmpty() || policy == null) {
            return null;
        }
        List<CredentialSpec> specs = credentials.stream().map(CredentialReader.Entry::spec).collect(Collectors.toList());
        return new MesaConfig(source, profile, egress, listen, admin, adminSection.control(), network, tls,
                specs, broker, audit, limits, dlp, approvals, policy);
    }

    private void version() {
        YamlNode version = root.raw("version");
        if (version == null) {
            root.problem("version", "is required: start the file with version: 1");
            return;
        }
        Long number = MapReader.wholeNumber(version);
        if (number == null || number != 1) {
            root.problem("version", "must be 1 (the only config format this proxy reads), got " + version.describe());
        }
    }

    /** The file's profile is checked even when --profile overrides it. */
    private Profile profile() {
        Profile fromFile = null;
        boolean fileBroken = false;
        String text = root.string("profile");
        if (text != null) {
            String resolved = ProfileCatalog.isPath(text) ? base.resolve(text).normalize().toString() : text;
            try {
                fromFile = catalog.profile(resolved);
            } catch (IllegalArgumentException e) {
                root.problem("profile", e.getMessage());
                fileBroken = true;
            }
        } else {
            fileBroken = root.present("profile"); // a wrong type, already reported
        }
        if (flags.profile() != null) {
            return flags.profile();
        }
        if (flags.profileInvalid() || fileBroken) {
            return null;
        }
        return fromFile != null ? fromFile : catalog.profile(DEFAULT_PROFILE);
    }

    private EgressClass egress(Profile profile) {
        String name = root.string("egress");
        if (name == null) {
            return root.present("egress") ? null : catalog.egressClass(profile.egress().get(0));
        }
        if (!profile.egress().contains(name)) {
            String origin = flags.profile() != null ? ", from --profile" : "";
            root.problem("egress", "\"" + name + "\" is outside profile " + profile.name() + " (" + profile.title() + origin
                    + "), which permits " + String.join(" or ", profile.egress()));
            return null;
        }
        return catalog.egressClass(name);
    }

    /** The file's value is checked even when a flag overrides it. */
    private HostAndPort address(String key, int line, String text, HostAndPort flag, HostAndPort fallback) {
        HostAndPort fromFile = null;
        if (text != null) {
            try {
                fromFile = HostAndPort.parse(text);
            } catch (IllegalArgumentException e) {
                root.problems().add(line, key, e.getMessage());
            }
        }
        if (flag != null) {
            return flag;
        }
        return fromFile != null ? fromFile : text == null ? fallback : null;
    }

    /** N3, or any class with neither hosts nor "any public host". */
    private static boolean letsNothingLeave(EgressClass egress) {
        return !egress.anyPublicHost() && egress.hosts().isEmpty();
    }

    private static String otherClasses(Profile profile, EgressClass egress) {
        List<String> others = profile.egress().stream().filter(n -> !n.equals(egress.name())).collect(Collectors.toList());
        return others.isEmpty() ? "" : " (profile " + profile.name() + " also permits egress: " + String.join(" or ", others) + ")";
    }

    /** Whether {@code host} (a listener's address as written) is a loopback address. */
    static boolean loopback(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return h.equalsIgnoreCase("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1");
    }
}
