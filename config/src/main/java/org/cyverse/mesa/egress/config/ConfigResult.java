package org.cyverse.mesa.egress.config;

import java.util.List;

/** Either a config or the problems that prevent one (never both). */
public record ConfigResult(MesaConfig config, List<ConfigProblem> problems) {
    public ConfigResult {
        problems = List.copyOf(problems);
    }

    public boolean ok() {
        return config != null;
    }
}
