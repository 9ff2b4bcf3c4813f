package org.cyverse.mesa.egress.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads one YAML document into a {@link YamlNode} tree with Jackson's streaming YAML parser,
 * keeping the line of every key and value.
 */
final class YamlReader {

    private static final YAMLFactory FACTORY = YAMLFactory.builder().build();

    private YamlReader() {}

    /** A document that is not YAML, or uses YAML this config format refuses. */
    static final class SyntaxException extends Exception {
        private final int line;

        SyntaxException(int line, String message) {
            super(message);
            this.line = line;
        }

        /** 1-based, 0 when the parser did not know. */
        int line() {
            return line;
        }
    }

    /**
     * @return the document's root, or {@code null} when the text holds no document (empty, or
     *     only comments)
     */
    static YamlNode read(String text) throws SyntaxException {
        try (JsonParser parser = FACTORY.createParser(text)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                return null;
            }
            YamlNode root = value(parser, token);
            if (parser.nextToken() != null) {
                // A second document would be silently ignored by most loaders; refuse the doubt.
                throw new SyntaxException(line(parser), "a second YAML document (---) follows; a config file holds one");
            }
            return root;
        } catch (JsonProcessingException e) {
            if (e.getCause() instanceof MarkedYAMLException marked) {
                YamlSyntax.Described described = YamlSyntax.describe(marked);
                throw new SyntaxException(described.line(), described.message());
            }
            JsonLocation location = e.getLocation();
            int line = location == null ? 0 : Math.max(location.getLineNr(), 0);
            String column = location == null || location.getColumnNr() <= 0 ? "" : " (column " + location.getColumnNr() + ")";
            throw new SyntaxException(line, firstLine(e.getOriginalMessage()) + column);
        } catch (IOException | RuntimeException e) {
            // validate must name a problem, never print a stack trace, whatever the parser throws.
            throw new SyntaxException(0, "cannot be parsed: " + e.getMessage());
        }
    }

    private static YamlNode value(JsonParser parser, JsonToken token) throws IOException, SyntaxException {
        int line = line(parser);
        switch (token) {
            case START_OBJECT: {
                List<YamlNode.Entry> entries = new ArrayList<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String key = parser.currentName();
                    int keyLine = line(parser);
                    entries.add(new YamlNode.Entry(key, keyLine, value(parser, parser.nextToken())));
                }
                return new YamlNode.MapNode(entries, line);
            }
            case START_ARRAY: {
                List<YamlNode> items = new ArrayList<>();
                JsonToken next;
                while ((next = parser.nextToken()) != JsonToken.END_ARRAY) {
                    items.add(value(parser, next));
                }
                return new YamlNode.ListNode(items, line);
            }
            case VALUE_STRING:
                // Jackson hands an alias (*name) over as the string "name": refuse it rather than
                // let a reference silently become a literal.
                if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
                    throw new SyntaxException(line, "YAML aliases (*" + parser.getText() + ") are not supported; write the value out");
                }
                return new YamlNode.Scalar(YamlNode.Kind.STRING, parser.getText(), parser.getText(), line);
            case VALUE_NUMBER_INT:
                return new YamlNode.Scalar(YamlNode.Kind.INTEGER, parser.getText(), number(parser), line);
            case VALUE_NUMBER_FLOAT:
                return new YamlNode.Scalar(YamlNode.Kind.DECIMAL, parser.getText(), number(parser), line);
            case VALUE_TRUE:
            case VALUE_FALSE:
                return new YamlNode.Scalar(YamlNode.Kind.BOOLEAN, parser.getText(), token == JsonToken.VALUE_TRUE, line);
            case VALUE_NULL:
                return new YamlNode.Scalar(YamlNode.Kind.NULL, parser.getText(), null, line);
            default:
                throw new SyntaxException(line, "unexpected YAML content (" + token + ")");
        }
    }

    /** The number, or {@code null} when Jackson recognised a number it cannot convert. */
    private static Number number(JsonParser parser) {
        try {
            return parser.getNumberValue();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static int line(JsonParser parser) {
        return Math.max(parser.currentTokenLocation().getLineNr(), 0);
    }

    /** SnakeYAML appends the offending source line and a caret; the line number says enough. */
    private static String firstLine(String message) {
        if (message == null || message.isBlank()) {
            return "cannot be parsed";
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).trim();
    }
}
