package org.cyverse.mesa.egress.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.PathGlob;
import org.cyverse.mesa.egress.config.MapReader.Text;
import org.cyverse.mesa.egress.injector.CredentialLimits;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.KindSpec;
import org.cyverse.mesa.egress.injector.SecretRef;

/** Reads the {@code credentials} list. Whether the profile lets each credential reach its hosts is {@link CredentialScope}'s. */
final class CredentialReader {

    static final List<String> KEYS = Stream.concat(Stream.of("name", "hosts", "ports", "methods", "paths", "sentinel",
            "header", "format", "secret", "allow_plaintext", "body_substitution", "limits"), CredentialKinds.keys().stream()).toList();

    static final String DEFAULT_FORMAT = "Bearer {secret}";
    /** {@code sentinel: auto}: a placeholder the credential's kind shapes (a JWT for oauth2). */
    static final String AUTO = "auto";

    /** Names end up in metric labels and audit records: keep them to a safe alphabet. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9_-]+");
    /** RFC 9110 section 5.1 field-name. */
    private static final Pattern HEADER = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /**
     * A valid credential and where its hosts were written, for {@link CredentialScope}'s messages.
     *
     * @param key e.g. {@code credentials[0]}
     * @param source the entry as written, for problems found across entries
     */
    record Entry(CredentialSpec spec, String key, List<Text> hosts, MapReader source) {}

    private CredentialReader() {}

    /**
     * @param broker whether {@code broker.openbao} is configured, which {@code openbao:} secrets need
     * @return the valid entries; invalid ones are reported
     */
    static List<Entry> read(MapReader root, boolean broker, Map<String, String> environment) {
        List<YamlNode> items = root.list("credentials");
        List<Entry> entries = new ArrayList<>();
        if (items == null) {
            return entries;
        }
        Map<String, String> names = new HashMap<>();
        Map<String, String> sentinels = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            String key = "credentials[" + i + "]";
            MapReader credential = MapReader.item(items.get(i), key, root.problems(), KEYS,
                    "{name: anthropic, hosts: [api.anthropic.com], secret: \"env:ANTHROPIC_API_KEY\"}");
            if (credential != null) {
                Entry entry = entry(credential, key, broker, environment, names, sentinels);
                if (entry != null) {
                    entries.add(entry);
                }
            }
        }
        for (KindReader reader : CredentialKinds.READERS) {
            reader.acrossEntries(entries);
        }
        return entries;
    }

    private static Entry entry(MapReader c, String key, boolean broker, Map<String, String> environment, Map<String, String> names,
            Map<String, String> sentinels) {
        int before = c.problems().size();
        String name = c.requiredString("name");
        if (name != null && !NAME.matcher(name).matches()) {
            c.problem("name", "may hold only a-z, 0-9, _ and -, got \"" + name + "\"");
        } else if (name != null && names.putIfAbsent(name, key) != null) {
            c.problem("name", "\"" + name + "\" is already the name of " + names.get(name));
        }
        List<Text> hostTexts = c.strings("hosts");
        List<HostPattern> hosts = new ArrayList<>();
        KindReader kindReader = CredentialKinds.of(c);
        if (!c.present("hosts") && kindReader != null && kindReader.defaultsHosts()) {
            hostTexts = null; // the kind's block gives them, once read
        } else if (!c.present("hosts")) {
            c.problem("hosts", "is required: the only destinations this credential may reach");
        } else if (hostTexts != null && hostTexts.isEmpty()) {
            c.problem("hosts", "must name at least one host");
        } else if (hostTexts != null) {
            for (Text text : hostTexts) {
                hosts.add(ScopeReader.host(c, "hosts", text));
            }
        }
        Set<Integer> ports = ScopeReader.ports(c, "ports", Set.of(443));
        Set<String> methods = ScopeReader.methods(c, "methods");
        List<PathGlob> paths = ScopeReader.paths(c, "paths");
        String sentinel = sentinel(c, key, sentinels);
        String header = c.string("header");
        if (header != null && !HEADER.matcher(header).matches()) {
            c.problem("header", "\"" + header + "\" is not a header name");
        }
        String format = c.string("format");
        if (format == null) {
            format = DEFAULT_FORMAT;
        } else if (!format.contains("{secret}")) {
            c.problem("format", "must contain {secret}, where the secret goes, e.g. \"Bearer {secret}\"");
        } else if (hasControl(format)) {
            c.problem("format", "must not hold control characters (a line break would split the header)");
        }
        KindSpec kind = null;
        SecretRef secret = null;
        if (kindReader != null) {
            KindReader.Read read = kindReader.read(c, new KindReader.Context(name, key, broker, environment, sentinels));
            kind = read == null ? null : read.spec();
            secret = read == null ? null : read.secret();
            sentinel = read == null || read.sentinel() == null ? sentinel : read.sentinel();
            header = header == null && read != null ? read.defaultHeader() : header;
            if (read != null && !c.present("hosts")) {
                hostTexts = new ArrayList<>();
                for (String host : read.defaultHosts()) {
                    hosts.add(HostPattern.parse(host));
                    hostTexts.add(new Text(host, c.lineOf(kindReader.key())));
                }
                ports = c.present("ports") || read.defaultPort() == null ? ports : Set.of(read.defaultPort());
            }
        } else {
            secret = secret(c, broker);
        }
        if (AUTO.equals(sentinel)) {
            c.problem("sentinel", "auto is for kinds that shape their own placeholder (oauth2); give this credential's placeholder");
        }
        boolean allowPlaintext = c.bool("allow_plaintext", false);
        boolean bodySubstitution = c.bool("body_substitution", false);
        CredentialLimits limits = LimitsReader.read(c);
        if (c.problems().size() != before) {
            return null;
        }
        CredentialSpec spec = new CredentialSpec(name, hosts, ports, methods, paths, sentinel, header, format, secret, allowPlaintext,
                bodySubstitution, kind, limits);
        return new Entry(spec, key, hostTexts, c);
    }

    private static String sentinel(MapReader c, String key, Map<String, String> sentinels) {
        String sentinel = c.string("sentinel");
        if (sentinel == null) {
            return null;
        }
        if (sentinel.equals(AUTO)) {
            return AUTO; // the kind makes it (and registers it), or says it cannot
        }
        if (sentinel.isEmpty() || hasControl(sentinel)) {
            c.problem("sentinel", "must be a non-empty placeholder without control characters; omit it when the agent holds none");
            return null;
        }
        // Two credentials behind one placeholder: the proxy could not tell which secret is meant.
        String other = sentinels.putIfAbsent(sentinel, key);
        if (other != null) {
            c.problem("sentinel", "\"" + sentinel + "\" is already the sentinel of " + other);
        }
        return sentinel;
    }

    private static SecretRef secret(MapReader c, boolean broker) {
        if (!c.present("secret")) {
            c.problem("secret", "is required (or a mint block, for a value the proxy mints)");
            return null;
        }
        String text = c.requiredString("secret");
        if (text == null) {
            return null;
        }
        return secretRef(c, "secret", text, broker);
    }

    /** A secret reference in {@code key} of {@code c}; problems reported there. */
    static SecretRef secretRef(MapReader c, String key, String text, boolean broker) {
        try {
            SecretRef secret = SecretRef.parse(text);
            if (secret.scheme().equals("openbao") && !broker) {
                c.problem(key, "an openbao: secret needs broker.openbao (address and auth) in this file");
            }
            return secret;
        } catch (IllegalArgumentException e) {
            c.problem(key, e.getMessage());
            return null;
        }
    }

    static boolean hasControl(String text) {
        return text.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f);
    }
}
