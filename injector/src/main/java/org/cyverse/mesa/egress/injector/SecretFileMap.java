package org.cyverse.mesa.egress.injector;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads one top-level key of a YAML or JSON map ({@code file:PATH#KEY}) with a streaming
 * parser, so no tree of the other values is built and nothing but the wanted text is kept.
 */
final class SecretFileMap {

    private static final JsonFactory JSON = new JsonFactory();
    private static final YAMLFactory YAML = new YAMLFactory();

    private SecretFileMap() {}

    /**
     * The text of scalar key {@code key}, stripped of surrounding white space (a YAML block
     * scalar ends with a line break, which would split a header).
     *
     * @throws SecretUnavailableException naming the file and key, never quoting content
     */
    static String value(String text, String key, Path path) throws SecretUnavailableException {
        // JSON is read as JSON: YAML parsers trip over tabs that JSON allows.
        JsonFactory factory = text.stripLeading().startsWith("{") ? JSON : YAML;
        String found = null;
        int count = 0;
        try (JsonParser parser = factory.createParser(text)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw notAMap(path, null);
            }
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (!key.equals(name)) {
                    parser.skipChildren();
                    continue;
                }
                count++;
                if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                    throw new SecretUnavailableException("key \"" + key + "\" in secret file " + path
                            + " is a " + (value == JsonToken.START_OBJECT ? "map" : "list") + ", not a text value");
                }
                // getText() gives a scalar as written (a YAML "0123" stays "0123", not 83).
                found = value == JsonToken.VALUE_NULL ? "" : parser.getText();
            }
            if (token != JsonToken.END_OBJECT) {
                throw notAMap(path, parser.currentLocation());
            }
        } catch (JsonProcessingException e) {
            throw notAMap(path, e.getLocation());
        } catch (IOException e) {
            throw notAMap(path, null);
        }
        if (count == 0) {
            throw new SecretUnavailableException("secret file " + path + " has no top-level key \"" + key + "\"");
        }
        if (count > 1) {
            // Parsers disagree on which duplicate wins: refuse rather than pick one.
            throw new SecretUnavailableException("key \"" + key + "\" appears " + count + " times in secret file " + path);
        }
        return found.strip();
    }

    private static SecretUnavailableException notAMap(Path path, JsonLocation location) {
        // The parser's message is not passed on: it may quote the text around the error.
        String where = location != null && location.getLineNr() > 0 ? " (line " + location.getLineNr() + ")" : "";
        return new SecretUnavailableException("secret file " + path + " is not a YAML/JSON map" + where);
    }
}
