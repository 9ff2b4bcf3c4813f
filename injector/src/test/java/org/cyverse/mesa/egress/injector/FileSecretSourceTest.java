package org.cyverse.mesa.egress.injector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code file:PATH} and {@code file:PATH#KEY}: the value an operator put there, and errors that say where without saying what. */
class FileSecretSourceTest {

    @TempDir
    Path dir;

    private final FileSecretSource source = new FileSecretSource();

    private SecretRef ref(String name, String key) {
        return new SecretRef("file", dir.resolve(name).toString(), key);
    }

    private String fetch(String name, String content, String key) throws Exception {
        Files.writeString(dir.resolve(name), content);
        return source.fetch(ref(name, key)).secret().reveal();
    }

    static Stream<Arguments> values() {
        return Stream.of(
                Arguments.of("whole file, trimmed (kubectl create secret leaves no newline, echo does)", "  tok-123\n", null, "tok-123"),
                Arguments.of("YAML key", "api_key: yaml-value\nother: x\n", "api_key", "yaml-value"),
                Arguments.of("YAML key among nested maps", "meta:\n  api_key: not-this\napi_key: \"quoted-value\"\n", "api_key", "quoted-value"),
                Arguments.of("YAML scalar as written, not as a number", "pin: 0123\n", "pin", "0123"),
                Arguments.of("YAML block scalar without its line break", "token: |\n  block-value\n", "token", "block-value"),
                Arguments.of("JSON key, tab-indented", "{\n\t\"api_key\": \"json-value\",\n\t\"n\": [1, 2]\n}", "api_key", "json-value"),
                Arguments.of("JSON number as written", "{\"id\": 1e5}", "id", "1e5"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("values")
    void readsTheValue(String name, String content, String key, String expected) throws Exception {
        assertEquals(expected, fetch("secret", content, key));
    }

    static Stream<Arguments> problems() {
        return Stream.of(
                Arguments.of("missing key", "other: leaked-other-value\n", "api_key", "no top-level key \"api_key\""),
                Arguments.of("key holding a map", "api_key:\n  nested: leaked-nested-value\n", "api_key", "is a map"),
                Arguments.of("key holding a list", "{\"api_key\": [\"leaked-list-value\"]}", "api_key", "is a list"),
                Arguments.of("not a map", "- leaked-item-value\n", "api_key", "is not a YAML/JSON map"),
                Arguments.of("broken YAML quoting a value", "a: [leaked-broken-value\napi_key: x\n", "api_key", "is not a YAML/JSON map"),
                Arguments.of("broken JSON", "{\"api_key\": \"leaked-json-value\",,}", "api_key", "is not a YAML/JSON map (line 1)"),
                Arguments.of("duplicate key", "api_key: leaked-first-value\napi_key: leaked-second-value\n", "api_key", "appears 2 times"),
                Arguments.of("empty key", "api_key: \"\"\nother: leaked-other-value\n", "api_key", "key \"api_key\" in secret file"),
                Arguments.of("null key", "api_key:\nother: leaked-other-value\n", "api_key", "is empty"),
                Arguments.of("empty file", " \n", null, "is empty"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("problems")
    void errorsNameFileAndKeyNeverAValue(String name, String content, String key, String expected) throws Exception {
        Files.writeString(dir.resolve("secret.yaml"), content);
        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(ref("secret.yaml", key)));

        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().contains(dir.resolve("secret.yaml").toString()), "names the file: " + e.getMessage());
        assertFalse(e.getMessage().contains("leaked"), "quotes no content: " + e.getMessage());
        assertFalse(e.revoked());
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains("leaked"), "a cause quotes content: " + t.getMessage());
        }
    }

    @Test
    void aMissingFileIsNamed() {
        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(ref("absent", null)));
        assertEquals("secret file " + dir.resolve("absent") + " does not exist", e.getMessage());
    }

    @Test
    void aRewriteIsNoticedAndRefetched() throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "first-value");
        SecretRef ref = ref("token", null);
        SecretLease first = source.fetch(ref);
        assertFalse(source.changed(ref, first), "nothing changed yet");

        Files.writeString(file, "second-value");
        assertTrue(source.changed(ref, first));
        SecretLease second = source.fetch(ref);
        assertEquals("second-value", second.secret().reveal());
        assertFalse(source.changed(ref, second));
    }

    @Test
    void aRewriteThatKeepsTheModificationTimeIsNoticedByContent() throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "first-value");
        FileTime time = Files.getLastModifiedTime(file);
        SecretRef ref = ref("token", null);
        SecretLease first = source.fetch(ref);

        Files.writeString(file, "other-value");
        Files.setLastModifiedTime(file, time);
        assertTrue(source.changed(ref, first));
    }

    @Test
    void aKubernetesSymlinkSwapIsNoticed() throws Exception {
        // A Secret volume: token -> ..data/token, ..data -> ..2024_01; an update swaps ..data atomically.
        Files.createDirectories(dir.resolve("..v1"));
        Files.createDirectories(dir.resolve("..v2"));
        Files.writeString(dir.resolve("..v1/token"), "api_key: old-value\n");
        Files.writeString(dir.resolve("..v2/token"), "api_key: new-value\n");
        Files.createSymbolicLink(dir.resolve("..data"), Path.of("..v1"));
        Files.createSymbolicLink(dir.resolve("token"), Path.of("..data/token"));
        SecretRef ref = ref("token", "api_key");
        SecretLease first = source.fetch(ref);
        assertEquals("old-value", first.secret().reveal());

        Files.createSymbolicLink(dir.resolve("..data_tmp"), Path.of("..v2"));
        Files.move(dir.resolve("..data_tmp"), dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

        assertTrue(source.changed(ref, first));
        assertEquals("new-value", source.fetch(ref).secret().reveal());
    }

    @Test
    void aDeletedFileCountsAsChangedSoTheStoreReportsIt() throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "value-1");
        SecretRef ref = ref("token", null);
        SecretLease lease = source.fetch(ref);
        Files.delete(file);

        assertTrue(source.changed(ref, lease));
        assertThrows(SecretUnavailableException.class, () -> source.fetch(ref));
    }

    @Test
    void theVersionTellsChangeWithoutRevealingTheValue() throws Exception {
        String content = "1234";
        Files.writeString(dir.resolve("pin"), content);
        SecretLease lease = source.fetch(ref("pin", null));
        String plainDigest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content.getBytes(StandardCharsets.UTF_8)));

        assertFalse(lease.version().contains(content));
        assertFalse(plainDigest.startsWith(lease.version()), "an unkeyed digest of a PIN is a lookup away from the PIN");
        assertNull(lease.expiresAt(), "a file does not expire by itself");
        Files.writeString(dir.resolve("pin"), "1235");
        assertNotEquals(lease.version(), source.fetch(ref("pin", null)).version());
    }

    @Test
    void anOversizedFileIsRefused() throws Exception {
        Files.write(dir.resolve("big"), new byte[FileSecretSource.MAX_BYTES + 1]);
        SecretUnavailableException e = assertThrows(SecretUnavailableException.class, () -> source.fetch(ref("big", null)));
        assertTrue(e.getMessage().contains("larger than"), e.getMessage());
    }
}
