package org.cyverse.mesa.egress.config;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** Test resources under {@code config/} and problems printed as {@code validate} prints them. */
final class ConfigFixtures {

    /** Loading the bundled catalog parses nine files; share it. */
    static final ProfileCatalog CATALOG = ProfileCatalog.bundled();

    private ConfigFixtures() {}

    static Path resource(String relative) {
        URL url = ConfigFixtures.class.getResource("/config/" + relative);
        if (url == null) {
            throw new IllegalArgumentException("no test resource config/" + relative);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static ConfigResult load(Path file, Overrides overrides) {
        return new ConfigLoader(CATALOG).load(file, overrides);
    }

    static MesaConfig loadOk(Path file, Overrides overrides) {
        ConfigResult result = load(file, overrides);
        if (!result.ok()) {
            throw new AssertionError("expected a valid config, got:\n" + lines(result, file));
        }
        return result.config();
    }

    /** Each problem as {@code validate} prints it, with {@code file} shortened to its name. */
    static List<String> lines(ConfigResult result, Path file) {
        return result.problems().stream()
                .map(p -> file != null && p.file().equals(file.toString())
                        ? new ConfigProblem(file.getFileName().toString(), p.line(), p.key(), p.message()) : p)
                .map(ConfigProblem::toString)
                .collect(Collectors.toList());
    }
}
