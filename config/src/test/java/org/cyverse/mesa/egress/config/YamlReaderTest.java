package org.cyverse.mesa.egress.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The tree keeps what Jackson's JsonNode forgets: the line of every key and value. */
class YamlReaderTest {

    @Test
    void remembersTheLineOfEveryKeyAndValue() throws Exception {
        YamlNode.MapNode root = (YamlNode.MapNode) YamlReader.read(String.join("\n",
                "# comment",
                "version: 1",
                "allow:",
                "  - host: example.org",
                "    ports:",
                "      - 443",
                ""));

        YamlNode.Entry allow = root.entries().get(1);
        assertEquals(List.of("version", "allow"), root.entries().stream().map(YamlNode.Entry::key).collect(Collectors.toList()));
        assertEquals(2, root.entries().get(0).keyLine());
        assertEquals(3, allow.keyLine());
        YamlNode.MapNode item = (YamlNode.MapNode) ((YamlNode.ListNode) allow.value()).items().get(0);
        assertEquals(4, item.line());
        assertEquals(5, item.entries().get(1).keyLine());
        assertEquals(6, ((YamlNode.ListNode) item.entries().get(1).value()).items().get(0).line());
    }

    @Test
    void scalarsKeepTheirKindAndSpelling() throws Exception {
        YamlNode.MapNode root = (YamlNode.MapNode) YamlReader.read("a: 443\nb: \"443\"\nc: yes\nd: ~\ne: 1.5\nf:\n");
        List<YamlNode.Scalar> values = root.entries().stream().map(e -> (YamlNode.Scalar) e.value()).collect(Collectors.toList());

        assertEquals(YamlNode.Kind.INTEGER, values.get(0).kind());
        assertEquals(YamlNode.Kind.STRING, values.get(1).kind(), "quoted stays a string");
        assertEquals(YamlNode.Kind.BOOLEAN, values.get(2).kind());
        assertEquals("yes", values.get(2).text(), "a string field can still read it as written");
        assertTrue(values.get(3).isEmpty());
        assertEquals(YamlNode.Kind.DECIMAL, values.get(4).kind());
        assertTrue(values.get(5).isEmpty(), "a key with nothing after it");
    }

    @Test
    void keepsDuplicateKeysForTheValidatorToReport() throws Exception {
        YamlNode.MapNode root = (YamlNode.MapNode) YamlReader.read("a: 1\na: 2\n");

        assertEquals(2, root.entries().size());
    }

    @Test
    void anEmptyDocumentIsNoTree() throws Exception {
        assertNull(YamlReader.read(""));
        assertNull(YamlReader.read("# only a comment\n"));
    }

    @Test
    void syntaxErrorsCarryTheirLine() {
        YamlReader.SyntaxException e = assertThrows(YamlReader.SyntaxException.class,
                () -> YamlReader.read("a: 1\nb: [1, 2\nc: 3\n"));

        assertTrue(e.line() >= 2, "line " + e.line());
    }

    @Test
    void refusesAliasesAndSecondDocuments() {
        YamlReader.SyntaxException alias = assertThrows(YamlReader.SyntaxException.class, () -> YamlReader.read("a: &x 1\nb: *x\n"));
        YamlReader.SyntaxException second = assertThrows(YamlReader.SyntaxException.class, () -> YamlReader.read("a: 1\n---\nb: 2\n"));

        assertEquals(2, alias.line());
        assertEquals(3, second.line());
    }

    @Test
    void aTopLevelListIsAList() throws Exception {
        assertInstanceOf(YamlNode.ListNode.class, YamlReader.read("- a\n- b\n"));
    }
}
