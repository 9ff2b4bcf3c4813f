package org.cyverse.mesa.egress.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keycloak's distribution on disk without starting it: which JDK runs it, and the unpack done once. */
class KeycloakDistributionTest {

    @TempDir
    Path dir;

    @Test
    void picksTheFirstJdk21OrNewerAndRefusesWithWhatToInstallWhenThereIsNone() throws IOException {
        Path jdk17 = jdk("jdk-17", "17.0.15");
        Path jdk25 = jdk("jdk-25", "25.0.1");
        Path notAJdk = Files.createDirectories(dir.resolve("empty"));

        assertEquals(jdk25, KeycloakDistribution.firstJdk21(List.of(notAJdk, jdk17, jdk25)));

        IllegalStateException none = assertThrows(IllegalStateException.class,
                () -> KeycloakDistribution.firstJdk21(List.of(notAJdk, jdk17)));
        assertTrue(none.getMessage().contains("JDK 21 or newer") && none.getMessage().contains("Install one")
                && none.getMessage().contains("keycloak.java.home"), none.getMessage());
    }

    @Test
    void unpacksOnceWithoutTheTopDirectoryAndRedoesAnUnpackLeftIncomplete() throws IOException {
        Path zip = dir.resolve("dist.zip");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            entry(out, "keycloak-9.9.9/", null);
            entry(out, "keycloak-9.9.9/bin/kc.sh", "#!/bin/sh\n");
            entry(out, "keycloak-9.9.9/version.txt", "Keycloak - Version 9.9.9\n");
        }
        Path home = dir.resolve("target/keycloak-9.9.9");

        KeycloakDistribution.unpackOnce(zip, home);

        assertEquals("Keycloak - Version 9.9.9\n", Files.readString(home.resolve("version.txt")));
        assertTrue(Files.exists(home.resolve("bin/kc.sh")));
        assertFalse(Files.exists(home.resolveSibling("keycloak-9.9.9.partial")));
        Files.writeString(home.resolve("data-of-a-run"), "kept");
        assertEquals(Duration.ZERO, KeycloakDistribution.unpackOnce(zip, home), "a complete unpack is reused");
        assertTrue(Files.exists(home.resolve("data-of-a-run")));

        Files.delete(home.resolve(".mesa-unpacked")); // as if the unpack had been cut short
        KeycloakDistribution.unpackOnce(zip, home);
        assertFalse(Files.exists(home.resolve("data-of-a-run")), "an incomplete unpack is replaced");
        assertTrue(Files.exists(home.resolve("version.txt")));
    }

    private Path jdk(String name, String version) throws IOException {
        Path home = Files.createDirectories(dir.resolve(name));
        Files.createDirectories(home.resolve("bin"));
        Path java = Files.writeString(home.resolve("bin/java"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
        return home;
    }

    private static void entry(ZipOutputStream out, String name, String text) throws IOException {
        out.putNextEntry(new ZipEntry(name));
        if (text != null) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        out.closeEntry();
    }
}
