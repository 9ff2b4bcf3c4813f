package org.cyverse.mesa.egress.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.Profile;

/**
 * The profiles P0..P4 and egress classes N0..N3 bundled from {@code profiles/}, plus profile files
 * given by path. A profile file names bundled classes only: the classes are the taxonomy of
 * CONTEXT.md, and a site widens a class with {@code allow} entries, not a class of its own.
 * Immutable and thread-safe.
 */
public final class ProfileCatalog {

    /** Where the profiles module puts the YAML files on the classpath. */
    static final String RESOURCE_DIR = "mesa-egress/profiles/";
    static final List<String> PROFILE_NAMES = List.of("P0", "P1", "P2", "P3", "P4");
    static final List<String> CLASS_NAMES = List.of("N0", "N1", "N2", "N3");

    private final Map<String, Profile> profiles;
    private final Map<String, EgressClass> classes;

    private ProfileCatalog(Map<String, Profile> profiles, Map<String, EgressClass> classes) {
        this.profiles = Map.copyOf(profiles);
        this.classes = Map.copyOf(classes);
    }

    /**
     * The bundled profiles (classpath {@code mesa-egress/profiles/*.yaml}); validated at load.
     *
     * @throws IllegalStateException when the bundled data is missing or broken (a build defect)
     */
    public static ProfileCatalog bundled() {
        Map<String, EgressClass> classes = new LinkedHashMap<>();
        Map<String, Profile> profiles = new LinkedHashMap<>();
        try {
            for (String name : CLASS_NAMES) {
                EgressClass egressClass = ProfileReader.egressClass(RESOURCE_DIR + name + ".yaml", resource(name));
                classes.put(checkName(name, egressClass.name()), egressClass);
            }
            for (String name : PROFILE_NAMES) {
                Profile profile = ProfileReader.profile(RESOURCE_DIR + name + ".yaml", resource(name), CLASS_NAMES, List.of());
                profiles.put(checkName(name, profile.name()), profile);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("bundled profile data is broken: " + e.getMessage(), e);
        }
        return new ProfileCatalog(profiles, classes);
    }

    private static String resource(String name) {
        String path = RESOURCE_DIR + name + ".yaml";
        try (InputStream in = ProfileCatalog.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("bundled profile " + path + " is not on the classpath (is mesa-egress-profiles missing?)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read bundled profile " + path + ": " + e.getMessage(), e);
        }
    }

    private static String checkName(String file, String name) {
        if (!file.equals(name)) {
            throw new IllegalArgumentException(RESOURCE_DIR + file + ".yaml says name: " + name);
        }
        return name;
    }

    /** Whether a {@code profile} value names a file rather than a bundled profile. */
    static boolean isPath(String nameOrPath) {
        return nameOrPath.contains("/") || nameOrPath.endsWith(".yaml");
    }

    /**
     * A bundled profile by name ({@code P0}..{@code P4}) or a profile file by path (a value that
     * contains {@code /} or ends in {@code .yaml}); a relative path is relative to the working
     * directory.
     *
     * @throws IllegalArgumentException naming the problem and the valid names
     */
    public Profile profile(String nameOrPath) {
        if (nameOrPath == null || nameOrPath.isBlank()) {
            throw new IllegalArgumentException("no profile given; valid: " + validProfiles());
        }
        if (isPath(nameOrPath)) {
            return fromFile(nameOrPath);
        }
        Profile profile = profiles.get(nameOrPath);
        if (profile == null) {
            // Profile names are exact (an audit record's "P2" means one thing): a near miss gets a hint, not a match.
            String hint = DidYouMean.closest(nameOrPath, profiles.keySet()).map(p -> "did you mean \"" + p + "\"? ").orElse("");
            throw new IllegalArgumentException("unknown profile \"" + nameOrPath + "\"; " + hint + "valid: " + validProfiles());
        }
        return profile;
    }

    private Profile fromFile(String pathText) {
        String text;
        try {
            text = Files.readString(Path.of(pathText), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("profile file " + pathText + " does not exist; valid profiles: " + validProfiles());
        } catch (IOException | InvalidPathException e) {
            throw new IllegalArgumentException("cannot read profile file " + pathText + ": " + e.getMessage());
        }
        return ProfileReader.profile(pathText, text, CLASS_NAMES, PROFILE_NAMES);
    }

    private static String validProfiles() {
        return String.join(", ", PROFILE_NAMES) + ", or the path of a profile file (*.yaml)";
    }

    /** @throws IllegalArgumentException for an unknown class, naming the valid ones */
    public EgressClass egressClass(String name) {
        EgressClass egressClass = name == null ? null : classes.get(name);
        if (egressClass == null) {
            throw new IllegalArgumentException("unknown egress class \"" + name + "\"; valid: " + String.join(", ", CLASS_NAMES));
        }
        return egressClass;
    }
}
