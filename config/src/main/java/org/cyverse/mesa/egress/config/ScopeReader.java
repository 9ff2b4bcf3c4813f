package org.cyverse.mesa.egress.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.PathGlob;
import org.cyverse.mesa.egress.config.MapReader.Text;

/**
 * Reads the scope fields that {@code allow}, {@code deny} and {@code credentials} entries share:
 * host patterns, ports, methods and paths.
 */
final class ScopeReader {

    /** The ports of an {@code allow} entry without {@code ports}. */
    static final Set<Integer> WEB_PORTS = Set.of(80, 443);

    /** RFC 9110 section 5.6.2 {@code token}: what a method may be made of. */
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    private ScopeReader() {}

    /** A host pattern written in the list {@code key} or as the value of {@code key}; {@code null} when invalid. */
    static HostPattern host(MapReader map, String key, Text text) {
        try {
            return HostPattern.parse(text.value());
        } catch (IllegalArgumentException e) {
            map.problems().add(text.line(), map.key(key), e.getMessage());
            return null;
        }
    }

    /**
     * Ports 1..65535; {@code fallback} when absent. An empty list is refused: in a rule it would
     * read as "every port", the opposite of what an empty list says.
     */
    static Set<Integer> ports(MapReader map, String key, Set<Integer> fallback) {
        List<YamlNode> items = map.scalars(key);
        if (items == null) {
            return fallback;
        }
        if (items.isEmpty()) {
            map.problem(key, "is empty; omit it for the default " + new TreeSet<>(fallback));
            return fallback;
        }
        Set<Integer> ports = new TreeSet<>();
        for (YamlNode item : items) {
            Long port = MapReader.wholeNumber(item);
            if (port == null) {
                map.problems().add(item.line(), map.key(key), "expected a port number, got " + item.describe());
            } else if (port < 1 || port > 65535) {
                map.problems().add(item.line(), map.key(key), "port " + ((YamlNode.Scalar) item).text() + " is out of range 1..65535");
            } else {
                ports.add(port.intValue());
            }
        }
        return ports;
    }

    /** Methods; empty (any method) when absent. */
    static Set<String> methods(MapReader map, String key) {
        List<Text> texts = map.strings(key);
        Set<String> methods = new TreeSet<>();
        if (texts == null) {
            return methods;
        }
        for (Text text : texts) {
            String method = text.value();
            if (!TOKEN.matcher(method).matches()) {
                map.problems().add(text.line(), map.key(key), "\"" + method + "\" is not an HTTP method");
            } else if (!method.equals(method.toUpperCase(Locale.ROOT))) {
                // Methods are case-sensitive (RFC 9110 section 9.1): "get" would never match a GET.
                map.problems().add(text.line(), map.key(key), "methods are case-sensitive; write "
                        + method.toUpperCase(Locale.ROOT) + ", not " + method);
            } else {
                methods.add(method);
            }
        }
        return methods;
    }

    /** Path globs; empty (any path) when absent. */
    static List<PathGlob> paths(MapReader map, String key) {
        List<Text> texts = map.strings(key);
        List<PathGlob> paths = new ArrayList<>();
        if (texts == null) {
            return paths;
        }
        for (Text text : texts) {
            try {
                paths.add(PathGlob.parse(text.value()));
            } catch (IllegalArgumentException e) {
                map.problems().add(text.line(), map.key(key), e.getMessage());
            }
        }
        return paths;
    }
}
