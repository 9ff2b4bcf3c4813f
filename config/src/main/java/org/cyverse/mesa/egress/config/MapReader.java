package org.cyverse.mesa.egress.config;

import java.math.BigInteger;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Typed, line-aware access to one YAML map of the config file. Every accessor reports what is
 * wrong to {@link Problems} under the dotted key path and returns a usable fallback, so that the
 * loader keeps going and names every problem in one pass.
 *
 * <p>The keys a section knows are declared up front: an unknown key is reported as soon as the
 * section is opened, with a suggestion when one known key is close (a misspelt
 * {@code alow_private} must not silently leave the default in force).
 */
final class MapReader {

    /** A string value and the line it was written on. */
    record Text(String value, int line) {}

    private final String path;
    private final int line;
    private final Problems problems;
    private final Map<String, YamlNode.Entry> entries = new LinkedHashMap<>();

    MapReader(YamlNode.MapNode node, String path, Problems problems, List<String> known) {
        this.path = path;
        this.line = node.line();
        this.problems = problems;
        for (YamlNode.Entry entry : node.entries()) {
            if (!known.contains(entry.key())) {
                problems.add(entry.keyLine(), key(entry.key()), DidYouMean.unknownKey(entry.key(), known));
                continue;
            }
            YamlNode.Entry first = entries.putIfAbsent(entry.key(), entry);
            if (first != null) {
                // YAML loaders disagree on which duplicate wins; a security config must not guess.
                problems.add(entry.keyLine(), key(entry.key()), "duplicate key (first at line " + first.keyLine() + ")");
            }
        }
    }

    /** A section that is absent: every accessor returns its default. */
    static MapReader absent(String path, int line, Problems problems) {
        return new MapReader(new YamlNode.MapNode(List.of(), line), path, problems, List.of());
    }

    /**
     * Opens a list item that must be a map, e.g. {@code allow[1]}; reports anything else.
     *
     * @return {@code null} when the item is not a map
     */
    static MapReader item(YamlNode item, String path, Problems problems, List<String> known, String example) {
        if (item instanceof YamlNode.MapNode map) {
            return new MapReader(map, path, problems, known);
        }
        problems.add(item.line(), path, "expected a map such as " + example + ", got " + item.describe());
        return null;
    }

    Problems problems() {
        return problems;
    }

    /** The dotted path of {@code k} in this map, e.g. {@code limits.idle_timeout}. */
    String key(String k) {
        return path.isEmpty() ? k : path + "." + k;
    }

    /**
     * The line of {@code k}'s value, or of this map when {@code k} is absent. For a map or list
     * value it is the key's line: a block collection starts on the line after its key, and the
     * key is what a person looks for.
     */
    int lineOf(String k) {
        YamlNode.Entry entry = entries.get(k);
        if (entry == null) {
            return line;
        }
        return entry.value() instanceof YamlNode.Scalar ? entry.value().line() : entry.keyLine();
    }

    /** Reports a problem with {@code k}'s value (or, when absent, at this map's line). */
    void problem(String k, String message) {
        problems.add(lineOf(k), key(k), message);
    }

    /** Whether {@code k} has a value; {@code k: ~}, {@code k: ""} and {@code k:} count as absent. */
    boolean present(String k) {
        YamlNode value = raw(k);
        return value != null && !isEmptyScalar(value);
    }

    /** The value of {@code k}, or {@code null} when absent or null. */
    YamlNode raw(String k) {
        YamlNode.Entry entry = entries.get(k);
        if (entry == null) {
            return null;
        }
        YamlNode value = entry.value();
        return value instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.NULL ? null : value;
    }

    /**
     * A scalar as text; numbers and booleans keep their spelling, so {@code sentinel: 12345}
     * and {@code namespace: yes} read as written.
     */
    String string(String k) {
        YamlNode value = raw(k);
        if (value == null) {
            return null;
        }
        if (value instanceof YamlNode.Scalar scalar) {
            return scalar.text();
        }
        problem(k, "expected a string, got " + value.describe());
        return null;
    }

    /** A string that must be given and not be empty. */
    String requiredString(String k) {
        if (!present(k)) {
            problem(k, "is required");
            return null;
        }
        String text = string(k);
        if (text != null && text.isBlank()) {
            problem(k, "must not be empty");
            return null;
        }
        return text;
    }

    /** An optional string where {@code ""} means "not set", as in SPEC.md's {@code token_file: ""}. */
    String optionalString(String k) {
        String text = string(k);
        return text == null || text.isEmpty() ? null : text;
    }

    boolean bool(String k, boolean fallback) {
        YamlNode value = raw(k);
        if (value == null) {
            return fallback;
        }
        if (value instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.BOOLEAN) {
            return (Boolean) scalar.value();
        }
        problem(k, "expected true or false, got " + value.describe());
        return fallback;
    }

    /** A whole number in {@code min..max}. */
    int integer(String k, int fallback, int min, int max) {
        YamlNode value = raw(k);
        if (value == null) {
            return fallback;
        }
        Long number = wholeNumber(value);
        if (number == null) {
            problem(k, "expected a whole number, got " + value.describe());
            return fallback;
        }
        if (number < min || number > max) {
            String range = max == Integer.MAX_VALUE ? "at least " + min : "between " + min + " and " + max;
            problem(k, "must be " + range + ", got " + ((YamlNode.Scalar) value).text());
            return fallback;
        }
        return number.intValue();
    }

    /** The value of an integer scalar, saturated to the long range; {@code null} for any other node. */
    static Long wholeNumber(YamlNode value) {
        if (!(value instanceof YamlNode.Scalar scalar) || scalar.kind() != YamlNode.Kind.INTEGER) {
            return null;
        }
        Object number = scalar.value();
        if (number instanceof BigInteger big) {
            return big.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return number instanceof Number n ? n.longValue() : null;
    }

    /** A duration such as {@code 5s} (see {@link Durations}). */
    Duration duration(String k, Duration fallback) {
        YamlNode value = raw(k);
        if (value == null) {
            return fallback;
        }
        if (wholeNumber(value) != null) {
            problem(k, "needs a unit: write e.g. " + ((YamlNode.Scalar) value).text() + "s or " + ((YamlNode.Scalar) value).text() + "ms");
            return fallback;
        }
        String text = string(k);
        if (text == null) {
            return fallback;
        }
        try {
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            problem(k, e.getMessage());
            return fallback;
        }
    }

    /**
     * An optional file path, resolved against {@code base} (the config file's directory), so a
     * config means the same files whatever directory the proxy was started from.
     */
    Path path(String k, Path base) {
        String text = optionalString(k);
        if (text == null) {
            return null;
        }
        try {
            return base.resolve(text).normalize();
        } catch (InvalidPathException e) {
            problem(k, "\"" + text + "\" is not a file path: " + e.getReason());
            return null;
        }
    }

    /**
     * A nested section; {@code null} when absent (also for {@code k:} with nothing after it) or
     * not a map.
     */
    MapReader map(String k, List<String> known) {
        YamlNode value = raw(k);
        if (value == null || isEmptyScalar(value)) {
            return null;
        }
        if (value instanceof YamlNode.MapNode map) {
            return new MapReader(map, key(k), problems, known);
        }
        problem(k, "expected a map of " + String.join(", ", known) + ", got " + value.describe());
        return null;
    }

    /** A nested section, or an {@link #absent} one so that callers read defaults the same way. */
    MapReader section(String k, List<String> known) {
        MapReader section = map(k, known);
        return section != null ? section : absent(key(k), lineOf(k), problems);
    }

    /** A list; {@code null} when absent or not a list. */
    List<YamlNode> list(String k) {
        return list(k, false);
    }

    /** A list of numbers or other scalars; {@code null} when absent or not a list. */
    List<YamlNode> scalars(String k) {
        return list(k, true);
    }

    /** @param ofScalars whether to hint {@code [value]} for a lone scalar */
    private List<YamlNode> list(String k, boolean ofScalars) {
        YamlNode value = raw(k);
        if (value == null || isEmptyScalar(value)) {
            return null;
        }
        if (value instanceof YamlNode.ListNode list) {
            return list.items();
        }
        problem(k, "expected a list, got " + value.describe()
                + (ofScalars && value instanceof YamlNode.Scalar scalar ? "; write [" + scalar.text() + "]" : ""));
        return null;
    }

    /** A list of strings with their lines; {@code null} when absent or not a list. */
    List<Text> strings(String k) {
        List<YamlNode> items = list(k, true);
        if (items == null) {
            return null;
        }
        List<Text> texts = new ArrayList<>(items.size());
        for (YamlNode item : items) {
            if (item instanceof YamlNode.Scalar scalar && scalar.kind() != YamlNode.Kind.NULL) {
                texts.add(new Text(scalar.text(), item.line()));
            } else {
                problems.add(item.line(), key(k), "expected a string in the list, got " + item.describe());
            }
        }
        return texts;
    }

    private static boolean isEmptyScalar(YamlNode value) {
        return value instanceof YamlNode.Scalar scalar && scalar.isEmpty();
    }
}
