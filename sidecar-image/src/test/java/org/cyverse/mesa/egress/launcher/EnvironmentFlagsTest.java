package org.cyverse.mesa.egress.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MESA_EGRESS_* variables stand in for flags: flags > environment > file > defaults. */
class EnvironmentFlagsTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(Map<String, String> env, String... args) {
        return Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
    }

    private String profileDecided() throws Exception {
        return new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).get("profile").asText();
    }

    @Test
    void theEnvironmentOverridesTheFileAndAFlagOverridesTheEnvironment() throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, "version: 1\nprofile: P2\n");
        Map<String, String> env = Map.of("MESA_EGRESS_CONFIG", file.toString());

        assertEquals(0, run(env, "check", "https://api.github.com/"));
        assertEquals("P2", profileDecided(), "the file named by MESA_EGRESS_CONFIG");

        out.reset();
        assertEquals(0, run(Map.of("MESA_EGRESS_CONFIG", file.toString(), "MESA_EGRESS_PROFILE", "P1"), "check", "https://api.github.com/"));
        assertEquals("P1", profileDecided(), "MESA_EGRESS_PROFILE over the file");

        out.reset();
        assertEquals(0, run(Map.of("MESA_EGRESS_CONFIG", file.toString(), "MESA_EGRESS_PROFILE", "P1"),
                "check", "--profile", "P0", "https://api.github.com/"));
        assertEquals("P0", profileDecided(), "--profile over MESA_EGRESS_PROFILE");

        out.reset();
        assertEquals(0, run(Map.of("MESA_EGRESS_PROFILE", " "), "check", "https://api.github.com/"));
        assertEquals("P1", profileDecided(), "a blank variable is unset: the default profile");
    }

    @Test
    void aBadValueFromTheEnvironmentIsReportedUnderTheVariablesName() {
        assertEquals(2, run(Map.of("MESA_EGRESS_LISTEN", "no-port-here"), "run"));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains("environment: MESA_EGRESS_LISTEN: "), message);
    }

    @Test
    void runRefusesAShareDirThatHoldsTheCaKey() throws Exception {
        Path share = dir.resolve("share");
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, "version: 1\nprofile: P2\nlisten: 127.0.0.1:0\nadmin: 127.0.0.1:0\ntls:\n  ca_cert: "
                + share.resolve("ca.pem") + "\n  ca_key: " + share.resolve("ca.key") + "\n");
        assertEquals(2, run(Map.of("MESA_EGRESS_SHARE_DIR", share.toString()), "run", "--config", file.toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains("is inside the share dir") && message.contains("environment variable MESA_EGRESS_SHARE_DIR"), message);
        assertTrue(Files.notExists(share.resolve("ca.key")), "nothing was created");
    }
}
