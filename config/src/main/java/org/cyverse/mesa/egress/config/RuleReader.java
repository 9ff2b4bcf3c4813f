package org.cyverse.mesa.egress.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.PathGlob;
import org.cyverse.mesa.egress.allowlist.Rule;

/** Reads the {@code allow} and {@code deny} lists into rules named {@code allow[i]} / {@code deny[i]}. */
final class RuleReader {

    static final List<String> KEYS = List.of("host", "ports", "methods", "paths");

    /**
     * The rules of one list.
     *
     * @param rules the entries that are valid
     * @param complete whether every entry was valid (a policy built from a partial list would
     *     blame credentials for a broken allow entry)
     * @param entries how many entries the list has, valid or not
     */
    record Result(List<Rule> rules, boolean complete, int entries) {}

    private RuleReader() {}

    /**
     * @param ports the ports of an entry without {@code ports}; empty means every port
     */
    static Result read(MapReader root, String key, Set<Integer> ports) {
        Problems problems = root.problems();
        int before = problems.size();
        List<YamlNode> items = root.list(key);
        List<Rule> rules = new ArrayList<>();
        if (items != null) {
            for (int i = 0; i < items.size(); i++) {
                Rule rule = entry(items.get(i), key + "[" + i + "]", problems, ports);
                if (rule != null) {
                    rules.add(rule);
                }
            }
        }
        return new Result(List.copyOf(rules), problems.size() == before, items == null ? 0 : items.size());
    }

    private static Rule entry(YamlNode item, String name, Problems problems, Set<Integer> defaultPorts) {
        int before = problems.size();
        MapReader entry = MapReader.item(item, name, problems, KEYS, "{host: example.org, ports: [443]}");
        if (entry == null) {
            return null;
        }
        String hostText = entry.requiredString("host");
        HostPattern host = hostText == null ? null : ScopeReader.host(entry, "host", new MapReader.Text(hostText, entry.lineOf("host")));
        Set<Integer> ports = ScopeReader.ports(entry, "ports", defaultPorts);
        Set<String> methods = ScopeReader.methods(entry, "methods");
        List<PathGlob> paths = ScopeReader.paths(entry, "paths");
        return problems.size() == before ? new Rule(name, host, ports, methods, paths) : null;
    }
}
