package org.cyverse.mesa.egress.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Keycloak's distribution on disk for {@link Keycloak}: the zip Maven resolved, unpacked once, and
 * a JDK it runs on.
 */
final class KeycloakDistribution {

    private static final String UNPACKED_MARKER = ".mesa-unpacked";

    private KeycloakDistribution() {}

    static String required(String property, String what) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property + " (" + what + ") is not set: proxy-core's surefire "
                    + "configuration sets it; outside Maven pass it as -D" + property + "=...");
        }
        return value;
    }

    /**
     * A JDK 21 or newer for Keycloak 26 (this build's tests run on 17): {@code keycloak.java.home}
     * if set, else the first of JAVA_HOME, this JVM, /usr/lib/jvm/temurin-25-jdk-amd64 and the
     * newest of /usr/lib/jvm/* that is one.
     */
    static Path javaHome() throws IOException {
        String chosen = System.getProperty("keycloak.java.home");
        if (chosen != null && !chosen.isBlank()) {
            Path home = Path.of(chosen);
            if (feature(home) < 21) {
                throw new IllegalStateException("keycloak.java.home=" + chosen + " is not a JDK 21 or newer (Keycloak 26 needs one)");
            }
            return home;
        }
        List<Path> candidates = new ArrayList<>();
        Optional.ofNullable(System.getenv("JAVA_HOME")).filter(s -> !s.isBlank()).map(Path::of).ifPresent(candidates::add);
        candidates.add(Path.of(System.getProperty("java.home")));
        candidates.add(Path.of("/usr/lib/jvm/temurin-25-jdk-amd64"));
        Path jvms = Path.of("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> all = Files.list(jvms)) {
                all.sorted(Comparator.comparingInt(KeycloakDistribution::feature).reversed()).forEach(candidates::add);
            }
        }
        return firstJdk21(candidates);
    }

    /** The first of {@code candidates} that is a JDK 21 or newer; else an error saying what to install. */
    static Path firstJdk21(List<Path> candidates) {
        for (Path home : candidates) {
            if (feature(home) >= 21) {
                return home;
            }
        }
        throw new IllegalStateException("Keycloak 26 needs a JDK 21 or newer and none was found (looked at " + candidates
                + "). Install one (Temurin 21 or 25 from adoptium.net, or openjdk-21-jdk-headless on Debian 13) "
                + "and set JAVA_HOME or -Dkeycloak.java.home to it.");
    }

    /** The JDK's feature version from its {@code release} file, 0 when it is not a JDK with bin/java. */
    private static int feature(Path home) {
        try {
            if (!Files.isExecutable(home.resolve("bin/java"))) {
                return 0;
            }
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(v.split("[.+-]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /**
     * Unpacks the zip into {@code home} unless a complete unpack is there: into a sibling directory
     * first, marked complete, then renamed, so an interrupted unpack is never taken for one.
     */
    static Duration unpackOnce(Path zip, Path home) throws IOException {
        if (Files.exists(home.resolve(UNPACKED_MARKER))) {
            return Duration.ZERO;
        }
        Instant begun = Instant.now();
        if (Files.exists(home) && !Files.exists(home.resolve("bin/kc.sh"))) {
            throw new IllegalStateException(home + " exists and is no Keycloak distribution: not replacing it");
        }
        deleteTree(home); // an unpack without its marker is incomplete
        Path partial = home.resolveSibling(home.getFileName() + ".partial");
        deleteTree(partial);
        try (ZipFile file = new ZipFile(zip.toFile())) {
            for (ZipEntry entry : Collections.list(file.entries())) {
                String name = entry.getName();
                int slash = name.indexOf('/');
                if (slash < 0 || slash == name.length() - 1) {
                    continue; // the top directory, keycloak-<version>/
                }
                Path target = partial.resolve(name.substring(slash + 1)).normalize();
                if (!target.startsWith(partial)) {
                    throw new IOException("zip entry outside the distribution: " + name);
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    try (InputStream in = file.getInputStream(entry)) {
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        Files.writeString(partial.resolve(UNPACKED_MARKER), zip + "\n");
        Files.move(partial, home, StandardCopyOption.ATOMIC_MOVE);
        return Duration.between(begun, Instant.now());
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }
}
