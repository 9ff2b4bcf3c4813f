package org.cyverse.mesa.egress.config;

import java.util.List;

/**
 * A YAML value that remembers the line it was written on. Jackson's {@code JsonNode} tree forgets
 * locations, and every config problem must name its line, so {@link YamlReader} builds this small
 * tree instead.
 */
sealed interface YamlNode permits YamlNode.Scalar, YamlNode.MapNode, YamlNode.ListNode {

    /** 1-based line where the value starts. */
    int line();

    /** How a person would call this kind of value in a message, e.g. {@code a list}. */
    String describe();

    /** What YAML made of a plain scalar; quoted scalars are always {@link #STRING}. */
    enum Kind { STRING, INTEGER, DECIMAL, BOOLEAN, NULL }

    /**
     * A scalar.
     *
     * @param text the scalar as written (for a string: its value)
     * @param value a {@code String}, a {@code Number}, a {@code Boolean}, or {@code null}
     */
    record Scalar(Kind kind, String text, Object value, int line) implements YamlNode {
        /** {@code ~}, {@code null}, or an empty plain value ({@code key:} with nothing after it). */
        boolean isEmpty() {
            return kind == Kind.NULL || (kind == Kind.STRING && text.isEmpty());
        }

        @Override
        public String describe() {
            switch (kind) {
                case INTEGER:
                case DECIMAL:
                    return "the number " + text;
                case BOOLEAN:
                    return "the boolean " + text;
                case NULL:
                    return "nothing";
                default:
                    return "the string \"" + text + "\"";
            }
        }
    }

    /** A map; duplicate keys are kept so that they can be reported. */
    record MapNode(List<Entry> entries, int line) implements YamlNode {
        public MapNode {
            entries = List.copyOf(entries);
        }

        @Override
        public String describe() {
            return "a map";
        }
    }

    /** One {@code key: value} of a {@link MapNode}. */
    record Entry(String key, int keyLine, YamlNode value) {}

    /** A list. */
    record ListNode(List<YamlNode> items, int line) implements YamlNode {
        public ListNode {
            items = List.copyOf(items);
        }

        @Override
        public String describe() {
            return "a list";
        }
    }
}
