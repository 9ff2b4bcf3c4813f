package org.cyverse.mesa.egress.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.Profile;
import org.cyverse.mesa.egress.config.MapReader.Text;

/**
 * Reads one profile file ({@code P0.yaml}, or a site's own) or egress class file
 * ({@code N1.yaml}) of {@code profiles/}. The whole file is checked; every problem goes into one
 * {@link IllegalArgumentException} as {@code FILE:LINE: key: message}, joined by {@code "; "}.
 */
final class ProfileReader {

    static final List<String> PROFILE_KEYS = List.of("name", "title", "runtime", "egress", "credentials", "autonomy");
    static final List<String> CLASS_KEYS = List.of("name", "title", "any_public_host", "ports", "hosts");

    /** Names appear in audit records and messages. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final List<String> AUTONOMY = List.of("A0", "A1", "A2");

    private ProfileReader() {}

    /** @param source how messages name the file */
    static EgressClass egressClass(String source, String text) {
        Problems problems = new Problems(source);
        MapReader file = open(text, problems, CLASS_KEYS);
        String name = name(file);
        String title = file.requiredString("title");
        boolean anyPublicHost = file.bool("any_public_host", false);
        Set<Integer> ports = ScopeReader.ports(file, "ports", ScopeReader.WEB_PORTS);
        List<HostPattern> hosts = new ArrayList<>();
        List<Text> hostTexts = file.strings("hosts");
        if (hostTexts != null) {
            for (Text host : hostTexts) {
                HostPattern pattern = ScopeReader.host(file, "hosts", host);
                if (pattern != null && hosts.contains(pattern)) {
                    problems.add(host.line(), "hosts", host.value() + " is listed twice");
                }
                hosts.add(pattern);
            }
        }
        failIfAny(problems);
        return new EgressClass(name, title, anyPublicHost, hosts, ports);
    }

    /**
     * @param classes the egress classes a profile may name
     * @param taken names a profile file may not reuse (the bundled profiles)
     */
    static Profile profile(String source, String text, Collection<String> classes, Collection<String> taken) {
        Problems problems = new Problems(source);
        MapReader file = open(text, problems, PROFILE_KEYS);
        String name = name(file);
        if (name != null && taken.contains(name)) {
            // An audit record saying "profile P2" must mean the bundled P2.
            file.problem("name", "\"" + name + "\" is the name of a bundled profile; give a site profile its own name");
        }
        String title = file.requiredString("title");
        file.string("runtime");
        file.string("credentials");
        Set<String> egress = new LinkedHashSet<>();
        List<Text> egressTexts = file.strings("egress");
        if (egressTexts == null || egressTexts.isEmpty()) {
            if (egressTexts != null || !file.present("egress")) {
                file.problem("egress", "must list at least one egress class (" + String.join(", ", classes) + "), the default first");
            }
        } else {
            for (Text entry : egressTexts) {
                if (!classes.contains(entry.value())) {
                    problems.add(entry.line(), "egress", "unknown egress class \"" + entry.value() + "\" (valid: " + String.join(", ", classes) + ")");
                } else if (!egress.add(entry.value())) {
                    problems.add(entry.line(), "egress", entry.value() + " is listed twice");
                }
            }
        }
        List<Text> autonomy = file.strings("autonomy");
        List<String> levels = new ArrayList<>();
        if (autonomy != null) {
            for (Text level : autonomy) {
                if (!AUTONOMY.contains(level.value())) {
                    problems.add(level.line(), "autonomy", "unknown autonomy level \"" + level.value() + "\" (valid: " + String.join(", ", AUTONOMY) + ")");
                } else {
                    levels.add(level.value());
                }
            }
        }
        failIfAny(problems);
        return new Profile(name, title, List.copyOf(egress), levels);
    }

    private static MapReader open(String text, Problems problems, List<String> keys) {
        YamlNode root;
        try {
            root = YamlReader.read(text);
        } catch (YamlReader.SyntaxException e) {
            problems.add(e.line(), "yaml", e.getMessage());
            throw failure(problems);
        }
        if (!(root instanceof YamlNode.MapNode map)) {
            problems.add(root == null ? 1 : root.line(), "file", "expected a map of " + String.join(", ", keys)
                    + (root == null ? ", got an empty file" : ", got " + root.describe()));
            throw failure(problems);
        }
        return new MapReader(map, "", problems, keys);
    }

    private static String name(MapReader file) {
        String name = file.requiredString("name");
        if (name != null && !NAME.matcher(name).matches()) {
            file.problem("name", "may hold only letters, digits, _, . and -, got \"" + name + "\"");
            return null;
        }
        return name;
    }

    private static void failIfAny(Problems problems) {
        if (!problems.isEmpty()) {
            throw failure(problems);
        }
    }

    private static IllegalArgumentException failure(Problems problems) {
        return new IllegalArgumentException(problems.sorted().stream().map(ConfigProblem::toString).collect(Collectors.joining("; ")));
    }
}
