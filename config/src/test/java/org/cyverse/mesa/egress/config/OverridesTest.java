package org.cyverse.mesa.egress.config;

import static org.cyverse.mesa.egress.config.ConfigFixtures.lines;
import static org.cyverse.mesa.egress.config.ConfigFixtures.load;
import static org.cyverse.mesa.egress.config.ConfigFixtures.loadOk;
import static org.cyverse.mesa.egress.config.ConfigFixtures.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC.md: command-line flags override the config file; the config file overrides the defaults. */
class OverridesTest {

    @TempDir
    Path dir;

    @Test
    void flagsOverrideTheFile() {
        MesaConfig config = loadOk(resource("good/full.yaml"), new Overrides(null, "0.0.0.0:8080", "[::1]:0"));

        assertEquals(new HostAndPort("0.0.0.0", 8080), config.listen());
        assertEquals(new HostAndPort("::1", 0), config.admin());
        assertEquals("P2", config.profile().name(), "not overridden");
    }

    @Test
    void profileFlagOverridesTheFilesProfileAndItsDefaultClass() throws IOException {
        Path file = Files.writeString(dir.resolve("p2.yaml"), "version: 1\nprofile: P2\n");
        MesaConfig config = loadOk(file, new Overrides("P3", null, null));

        assertEquals("P3", config.profile().name());
        assertEquals("N2", config.egress().name());
    }

    @Test
    void flagsApplyWithoutAFile() {
        MesaConfig config = loadOk(null, new Overrides("P4", "127.0.0.1:0", "127.0.0.1:0"));

        assertEquals("P4", config.profile().name());
        assertEquals("N2", config.egress().name());
        assertEquals(0, config.listen().port());
    }

    @Test
    void profileFlagTakesAFile() {
        MesaConfig config = loadOk(null, new Overrides(resource("profiles/site-gpu.yaml").toString(), null, null));

        assertEquals("site-gpu", config.profile().name());
    }

    @Test
    void invalidFlagsAreReportedAsTheCommandLine() {
        ConfigResult result = load(resource("good/full.yaml"), new Overrides("P7", "localhost", "127.0.0.1:70000"));

        assertEquals(List.of(
                "command line: --profile: unknown profile \"P7\"; valid: P0, P1, P2, P3, P4, or the path of a profile file (*.yaml)",
                "command line: --listen: expected HOST:PORT, got \"localhost\"",
                "command line: --admin: port out of range 0..65535 in \"127.0.0.1:70000\""),
                lines(result, null));
    }

    @Test
    void aFilesEgressOutsideTheFlagsProfileIsAFileProblem() {
        Path file = resource("good/full.yaml");
        ConfigResult result = load(file, new Overrides("P3", null, null));

        assertEquals(List.of("full.yaml:3: egress: \"N1\" is outside profile P3 (Autonomous, from --profile), which permits N2"),
                lines(result, file));
    }

    @Test
    void flagsThatCollideAreTheCommandLinesProblem() {
        ConfigResult result = load(null, new Overrides(null, "127.0.0.1:9090", null));

        assertEquals(List.of("command line: --listen: is the same address as admin (127.0.0.1:9090)"), lines(result, null));
    }

    @Test
    void theFileIsCheckedEvenWhereAFlagOverridesIt() throws IOException {
        Path file = Files.writeString(dir.resolve("bad.yaml"), "version: 1\nprofile: P9\nlisten: nowhere\n");
        ConfigResult result = load(file, new Overrides("P2", "127.0.0.1:3128", null));

        assertEquals(List.of(
                "bad.yaml:2: profile: unknown profile \"P9\"; valid: P0, P1, P2, P3, P4, or the path of a profile file (*.yaml)",
                "bad.yaml:3: listen: expected HOST:PORT, got \"nowhere\""),
                lines(result, file));
    }

    @Test
    void aBadAddressFlagDoesNotHideTheFilesProblems() throws IOException {
        Path file = Files.writeString(dir.resolve("scope.yaml"), String.join("\n",
                "version: 1",
                "profile: P3",
                "credentials:",
                "  - name: openai",
                "    hosts: [api.openai.com]",
                "    secret: \"env:OPENAI_API_KEY\"",
                ""));
        ConfigResult result = load(file, new Overrides(null, "3128", null));

        List<String> problems = lines(result, file);
        assertEquals(2, problems.size(), problems::toString);
        assertEquals("command line: --listen: expected HOST:PORT, got \"3128\"", problems.get(0));
        assertTrue(problems.get(1).startsWith("scope.yaml:5: credentials[0].hosts: api.openai.com is not allowed on port 443"), problems.get(1));
    }
}
