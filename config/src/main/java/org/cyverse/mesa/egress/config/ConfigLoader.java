package org.cyverse.mesa.egress.config;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.cyverse.mesa.egress.allowlist.Profile;

/**
 * Loads the {@code version: 1} YAML config of SPEC.md into a {@link MesaConfig}, reporting every
 * problem with its file and line.
 *
 * <p>Precedence (SPEC.md): command-line flags override the file, the file overrides the
 * defaults. The file is checked in full even where a flag overrides a key, so that
 * {@code validate FILE} and {@code run --config FILE} agree on whether FILE is valid. Problems
 * with a flag are reported with file {@code "command line"}, line 0 and the flag as key.
 * Thread-safe: a loader holds only the immutable catalog.
 */
public final class ConfigLoader {

    /** How flag problems name their "file". */
    static final String COMMAND_LINE = "command line";

    private final ProfileCatalog catalog;
    private final Map<String, String> environment;

    /** A loader that ignores the environment (tests stay deterministic). */
    public ConfigLoader(ProfileCatalog catalog) {
        this(catalog, Map.of());
    }

    /**
     * A loader whose {@link #load(Path, Overrides)} reads the OpenBao CLI variables from
     * {@code environment} (the launcher passes {@code System.getenv()}), so that a reload sees
     * the same broker as the start.
     */
    public ConfigLoader(ProfileCatalog catalog, Map<String, String> environment) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
    }

    /**
     * @param file the config file, or {@code null} for the built-in defaults (SPEC.md: P1 on
     *     127.0.0.1:3128, admin 127.0.0.1:9090, CA under ./.mesa-egress/)
     * @param overrides command-line flags
     */
    public ConfigResult load(Path file, Overrides overrides) {
        return load(file, overrides, environment);
    }

    /**
     * As {@link #load(Path, Overrides)}, with the OpenBao CLI variables taken from {@code env}:
     * {@code BAO_ADDR}/{@code VAULT_ADDR}, {@code BAO_NAMESPACE}/{@code VAULT_NAMESPACE} and
     * {@code BAO_CACERT}/{@code VAULT_CACERT} fill in {@code broker.openbao.address},
     * {@code namespace} and {@code ca_cert} where the file leaves them out or empty. Precedence:
     * the file, then {@code BAO_*}, then {@code VAULT_*}. With no broker section, {@code BAO_ADDR}
     * implies a broker with method kubernetes for {@code openbao:} secrets (its role must still be
     * in the file).
     */
    public ConfigResult load(Path file, Overrides overrides, Map<String, String> env) {
        Overrides flags = overrides == null ? Overrides.NONE : overrides;
        List<ConfigProblem> flagProblems = new ArrayList<>();
        Profile profile = flags.profile() == null ? null : flagProfile(flags.profile(), flagProblems);
        ConfigFileReader.Flags parsed = new ConfigFileReader.Flags(profile,
                flags.listen() == null ? null : flagAddress("--listen", flags.listen(), flagProblems),
                flags.admin() == null ? null : flagAddress("--admin", flags.admin(), flagProblems),
                flags.profile() != null && profile == null);

        Problems problems = new Problems(file == null ? "(defaults)" : file.toString());
        MapReader root;
        Path base;
        if (file == null) {
            root = MapReader.absent("", 0, problems);
            base = Path.of("").toAbsolutePath();
        } else {
            root = open(file, problems);
            base = file.toAbsolutePath().normalize().getParent();
        }
        MesaConfig config = null;
        if (root != null) {
            config = new ConfigFileReader(catalog, root, base, file, parsed, flagProblems, BrokerEnvironment.of(env), env).read();
        }
        List<ConfigProblem> all = new ArrayList<>(flagProblems);
        all.addAll(problems.sorted());
        return all.isEmpty() ? new ConfigResult(config, List.of()) : new ConfigResult(null, all);
    }

    private Profile flagProfile(String value, List<ConfigProblem> problems) {
        try {
            return catalog.profile(value);
        } catch (IllegalArgumentException e) {
            problems.add(new ConfigProblem(COMMAND_LINE, 0, "--profile", e.getMessage()));
            return null;
        }
    }

    private static HostAndPort flagAddress(String flag, String value, List<ConfigProblem> problems) {
        try {
            return HostAndPort.parse(value);
        } catch (IllegalArgumentException e) {
            problems.add(new ConfigProblem(COMMAND_LINE, 0, flag, e.getMessage()));
            return null;
        }
    }

    /** Reads and parses the file; {@code null} (with the problem reported) when there is no map to read. */
    private static MapReader open(Path file, Problems problems) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            problems.add(0, "file", "does not exist");
            return null;
        } catch (CharacterCodingException e) {
            problems.add(0, "file", "is not UTF-8 text");
            return null;
        } catch (IOException e) {
            problems.add(0, "file", "cannot be read: " + e);
            return null;
        }
        YamlNode tree;
        try {
            tree = YamlReader.read(text);
        } catch (YamlReader.SyntaxException e) {
            problems.add(e.line(), "yaml", e.getMessage());
            return null;
        }
        if (tree == null || (tree instanceof YamlNode.Scalar scalar && scalar.isEmpty())) {
            problems.add(1, "file", "is empty; a config file is a map that starts with version: 1");
            return null;
        }
        if (!(tree instanceof YamlNode.MapNode map)) {
            problems.add(tree.line(), "file", "expected a map of settings (version: 1, profile: ...), got " + tree.describe());
            return null;
        }
        return new MapReader(map, "", problems, ConfigFileReader.KEYS);
    }
}
