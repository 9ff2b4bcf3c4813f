package org.cyverse.mesa.egress.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The image rules, read off {@code sidecar-image/Dockerfile} (no Docker engine is needed to hold
 * it to them): base images pinned by digest, no ADD, no sudo, no {@code curl | sh}, OCI labels,
 * SOURCE_DATE_EPOCH, and a final stage that is distroless, runs as a numeric non-root UID and
 * runs nothing at build time (it has no shell to run it with).
 */
class DockerfileTest {

    private static final Pattern DIGEST = Pattern.compile("@sha256:[0-9a-f]{64}(\\s|$)");

    /** One instruction, continuation lines joined, comments dropped. */
    record Instruction(String keyword, String arguments) {}

    private static List<Instruction> instructions() throws IOException {
        List<Instruction> result = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : Files.readAllLines(Path.of("Dockerfile"), StandardCharsets.UTF_8)) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.length() == 0)) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            current.append(trimmed);
            String text = current.toString().strip();
            current.setLength(0);
            if (text.isEmpty()) {
                continue;
            }
            int space = text.indexOf(' ');
            result.add(new Instruction(text.substring(0, space).toUpperCase(Locale.ROOT), text.substring(space + 1).strip()));
        }
        return result;
    }

    /** The instructions of each stage, from its FROM to the next. */
    private static List<List<Instruction>> stages() throws IOException {
        List<List<Instruction>> stages = new ArrayList<>();
        for (Instruction i : instructions()) {
            if (i.keyword().equals("FROM")) {
                stages.add(new ArrayList<>());
            }
            if (!stages.isEmpty()) {
                stages.get(stages.size() - 1).add(i);
            }
        }
        return stages;
    }

    @Test
    void everyBaseImageIsPinnedByDigest() throws IOException {
        List<List<Instruction>> stages = stages();
        assertTrue(stages.size() >= 3, "multi-stage");
        for (List<Instruction> stage : stages) {
            String from = stage.get(0).arguments();
            assertTrue(DIGEST.matcher(from).find(), "FROM without a digest: " + from);
        }
    }

    /** Maven reads every module the parent pom lists, even with {@code -pl}: the build stage must copy each one. */
    @Test
    void theJarStageCopiesEveryModuleOfTheBuild() throws IOException {
        String pom = Files.readString(Path.of("../pom.xml"), StandardCharsets.UTF_8);
        String defaults = pom.substring(pom.indexOf("<modules>"), pom.indexOf("</modules>"));
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(defaults);
        while (m.find()) {
            modules.add(m.group(1));
        }
        assertTrue(modules.contains("config") && modules.contains("proxy-core"), "read the modules: " + modules);
        List<Instruction> jarStage = stages().get(0);
        for (String module : modules) {
            assertTrue(jarStage.stream().anyMatch(i -> i.keyword().equals("COPY") && i.arguments().equals(module + "/ " + module + "/")),
                    "the jar stage does not COPY " + module + "/, so its mvn package fails: " + jarStage);
        }
    }

    @Test
    void noAddNoSudoNoPipedInstallerScripts() throws IOException {
        String text = Files.readString(Path.of("Dockerfile"), StandardCharsets.UTF_8);
        for (Instruction i : instructions()) {
            assertFalse(i.keyword().equals("ADD"), "ADD fetches and unpacks implicitly; use COPY: " + i);
            assertFalse(i.arguments().matches("(?s).*\\bsudo\\b.*"), "sudo: " + i);
            assertFalse(i.arguments().matches("(?s).*\\b(curl|wget)\\b[^|;&]*\\|\\s*(ba|z|da)?sh\\b.*"), "a piped installer script: " + i);
        }
        assertFalse(text.contains("sudo") && !text.contains("sudo-free"), "no sudo anywhere");
    }

    @Test
    void theFinalStageIsDistrolessNumericNonRootAndRunsNothing() throws IOException {
        List<List<Instruction>> stages = stages();
        List<Instruction> last = stages.get(stages.size() - 1);
        assertTrue(last.get(0).arguments().startsWith("gcr.io/distroless/"), "no shell, no package manager: " + last.get(0));
        List<String> users = last.stream().filter(i -> i.keyword().equals("USER")).map(Instruction::arguments).toList();
        assertFalse(users.isEmpty(), "the final stage sets USER");
        Matcher numeric = Pattern.compile("(\\d+)(:(\\d+))?").matcher(users.get(users.size() - 1));
        assertTrue(numeric.matches(), "USER must be numeric (Kubernetes' runAsNonRoot cannot check a name): " + users);
        assertFalse(numeric.group(1).equals("0"), "non-root");
        assertTrue(last.stream().noneMatch(i -> i.keyword().equals("RUN")), "the final stage has no shell to RUN with");
        Instruction entrypoint = last.stream().filter(i -> i.keyword().equals("ENTRYPOINT")).findFirst().orElseThrow();
        assertTrue(entrypoint.arguments().startsWith("[\"/opt/java/bin/java\""), "exec form, on the jlink runtime: " + entrypoint);
        assertTrue(entrypoint.arguments().contains("\"@/opt/mesa-egress/jvm.options\""), "the JVM options bin/mesa-egress uses: " + entrypoint);
        assertTrue(last.stream().anyMatch(i -> i.keyword().equals("COPY") && i.arguments().startsWith("sidecar-image/bin/jvm.options ")),
                "jvm.options is in the image");
        assertTrue(last.stream().anyMatch(i -> i.keyword().equals("COPY") && i.arguments().contains("/opt/java")), "the jlink runtime");
    }

    @Test
    void theRuntimeIsLinkedByTheScriptMavenRuns() throws IOException {
        String text = Files.readString(Path.of("Dockerfile"), StandardCharsets.UTF_8);
        assertTrue(text.contains("sh /jlink/build-runtime.sh"), "the same jlink script as the Maven build");
        assertTrue(text.contains("--platform=$BUILDPLATFORM"), "the jar once; the runtime per target platform");
        assertTrue(Files.isRegularFile(Path.of("Dockerfile.dockerignore")), "targets and .git stay out of the context");
    }

    @Test
    void ociLabelsAndSourceDateEpoch() throws IOException {
        List<List<Instruction>> stages = stages();
        String labels = stages.get(stages.size() - 1).stream().filter(i -> i.keyword().equals("LABEL"))
                .map(Instruction::arguments).reduce("", String::concat);
        for (String key : List.of("title", "description", "source", "licenses", "version", "revision")) {
            assertTrue(labels.contains("org.opencontainers.image." + key + "="), "OCI label " + key);
        }
        List<Instruction> all = instructions();
        assertTrue(all.stream().anyMatch(i -> i.keyword().equals("ARG") && i.arguments().equals("SOURCE_DATE_EPOCH")),
                "SOURCE_DATE_EPOCH is declared");
        assertTrue(all.stream().anyMatch(i -> i.keyword().equals("RUN") && i.arguments().contains("${SOURCE_DATE_EPOCH")),
                "and used");
    }

    @Test
    void theLockdownStageRemovesSetuidBitsAndRunsTheScript() throws IOException {
        List<Instruction> lockdown = stages().stream().filter(s -> s.get(0).arguments().endsWith(" AS lockdown")).findFirst().orElseThrow();
        assertTrue(lockdown.stream().anyMatch(i -> i.keyword().equals("RUN") && i.arguments().contains("-perm /6000")
                && i.arguments().contains("chmod a-s")), "no setuid files");
        assertEquals("[\"/usr/local/bin/lockdown.sh\"]", lockdown.stream().filter(i -> i.keyword().equals("ENTRYPOINT"))
                .findFirst().orElseThrow().arguments());
        assertTrue(lockdown.stream().anyMatch(i -> i.keyword().equals("COPY") && i.arguments().contains("lockdown/lockdown.sh")));
    }
}
